package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// modelExt is the extension of the model files the server reads: model
// NAME is the file NAME.json.
const modelExt = ".json"

// maxModelFile bounds the size of a model file the server reads.
const maxModelFile = 1 << 30

// loadFactor bounds the memory that loading a model file takes, in
// multiples of its size, with a margin: 3.9 was measured for a model of
// fit padded to 1 GiB (4.2 GB resident at the peak) when the file was
// read twice, for its version and by its kind's loader; it is read once
// now, and the bound is kept for the loaders' own copies.
const loadFactor = 5

// modelFileLimit returns the largest model file the server reads on a
// machine of memory bytes: its load takes at most a quarter of them,
// so that a file too large for the machine is refused, not the process
// killed for want of memory while it serves.
func modelFileLimit(memory int64) int64 { return min(maxModelFile, memory/4/loadFactor) }

// registry keeps the models of the directory: for each file, the
// version being served and the last failure to load it.
type registry struct {
	dir     string
	maxFile int64 // the largest model file read (modelFileLimit)
	kinds   []Kind
	log     *slog.Logger
	metrics *metrics
	batch   batching

	mu      sync.RWMutex
	entries map[string]*entry
}

// entry is what the registry knows of one model file.
type entry struct {
	current *version    // the version served, nil if none has loaded
	stat    os.FileInfo // the file when current was loaded, or when it failed
	failed  error       // why the file as it is now did not load, if it did not
}

// validName reports whether a file name without its extension may name
// a model: letters, digits, '.', '_' and '-', not starting with '.'.
func validName(name string) bool {
	if name == "" || name[0] == '.' {
		return false
	}
	for _, c := range name {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// acquire returns the current version of the named model with a
// reference taken, or nil if it has none; known is false if there is no
// such model, and failed says why its file, as it is now, did not load.
func (r *registry) acquire(name string) (v *version, known bool, failed error) {
	for {
		r.mu.RLock()
		var e *entry
		e, known = r.entries[name]
		v, failed = nil, nil
		if known {
			v, failed = e.current, e.failed
		}
		r.mu.RUnlock()
		if v == nil || v.acquire() {
			return v, known, failed
		}
		// Retired between the lookup and the reference: the scan has
		// already put its successor in place, or removed the model.
	}
}

// scan reads the directory and loads the files that are new or have
// changed since the last scan, and drops the models whose files are
// gone. A file that fails to load leaves its previous version serving.
func (r *registry) scan() error {
	list, err := os.ReadDir(r.dir)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, de := range list {
		name, ok := strings.CutSuffix(de.Name(), modelExt)
		if !ok || strings.HasPrefix(de.Name(), ".") || de.IsDir() {
			continue
		}
		path := filepath.Join(r.dir, de.Name())
		if !validName(name) {
			r.log.Warn("model file skipped: a model's name holds letters, digits, '.', '_' and '-' only", "file", path)
			continue
		}
		seen[name] = true
		r.refresh(name, path)
	}
	r.mu.Lock()
	var gone []*version
	for name, e := range r.entries {
		if seen[name] {
			continue
		}
		delete(r.entries, name)
		if e.current != nil {
			gone = append(gone, e.current)
		}
		r.log.Info("model removed", "model", name)
	}
	r.metrics.models.Set(float64(r.serving()))
	r.mu.Unlock()
	for _, v := range gone {
		v.retire()
	}
	return nil
}

// serving counts the models with a version; r.mu must be held.
func (r *registry) serving() int {
	n := 0
	for _, e := range r.entries {
		if e.current != nil {
			n++
		}
	}
	return n
}

// refresh loads the file of the named model if it has changed since it
// was last loaded or failed.
func (r *registry) refresh(name, path string) {
	before, err := os.Stat(path)
	if err != nil {
		if _, lerr := os.Lstat(path); lerr == nil {
			// A link to nowhere, or round a loop: a file that cannot
			// be read, reported as such rather than ignored.
			r.install(name, nil, err, nil)
		}
		return // removed since the directory was read; the next scan drops it
	}
	r.mu.RLock()
	e := r.entries[name]
	r.mu.RUnlock()
	if e != nil && sameFile(e.stat, before) && !unreadable(e.failed) {
		return
	}
	v, err := r.load(name, path)
	after, statErr := os.Stat(path)
	if statErr != nil || !sameFile(before, after) {
		return // the file changed while it loaded: the next scan loads it again
	}
	r.install(name, v, err, after)
}

// install makes v, loaded from the file of the given stat, the version
// of the named model and starts it, or records err.
func (r *registry) install(name string, v *version, err error, stat os.FileInfo) {
	r.mu.Lock()
	e := r.entries[name]
	if e == nil {
		e = &entry{}
		r.entries[name] = e
	}
	e.stat = stat
	old := e.current
	replaced := false
	// An unreadable file is read again at each scan: its failure is
	// reported when it is new.
	repeated := err != nil && e.failed != nil && e.failed.Error() == err.Error()
	switch {
	case err != nil:
		e.failed = err
	case old != nil && old.id == v.id:
		// The same content in a new file: the loaded version serves on.
		e.failed = nil
	default:
		e.current, e.failed = v, nil
		v.start(r.batch)
		replaced = true
	}
	r.metrics.models.Set(float64(r.serving()))
	r.mu.Unlock()

	switch {
	case repeated:
	case err != nil:
		r.metrics.loads.WithLabelValues(name, "failed").Inc()
		msg := "model failed to load; no version is served"
		if old != nil {
			msg = "model failed to load; the previous version is still served"
		}
		r.log.Error(msg, "model", name, "error", err.Error())
	case replaced:
		r.metrics.loads.WithLabelValues(name, "loaded").Inc()
		action := "model loaded"
		if old != nil {
			action = "model replaced"
			old.retire()
		}
		r.log.Info(action, "model", name, "version", v.id, "file", v.file, "platform", v.meta.Platform)
		for _, w := range v.meta.Warnings {
			r.log.Warn("model loaded with a warning, returned with each of its answers", "model", name, "warning", w)
		}
	}
}

// unreadable reports whether err is a failure to open or read a model
// file (its permissions, too many open files, not a regular file)
// rather than one of its content. Such a file is read again at each
// scan, since chmod, chown or the process's open files may change
// without changing the file's stat that sameFile compares.
func unreadable(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe)
}

// sameFile reports whether two file infos describe the same file with
// the same content as far as the file system tells: the same inode, size
// and modification time. A file replaced by renaming another onto it is
// a new inode.
func sameFile(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}

// load reads the model file at path into a version, not yet started.
func (r *registry) load(name, path string) (*version, error) {
	data, head, err := r.read(path)
	if err != nil {
		return nil, err
	}
	k := slices.IndexFunc(r.kinds, func(k Kind) bool { return k.Format == head.Format && (k.Kind == "" || k.Kind == head.Kind) })
	if k < 0 {
		what := fmt.Sprintf("format %q", head.Format)
		if head.Kind != "" {
			what += fmt.Sprintf(" of kind %q", head.Kind)
		}
		return nil, fmt.Errorf("%s: %s is not a model this server loads (%s)", path, what, r.formats())
	}
	m, err := loadKind(r.kinds[k], path, data)
	if err != nil {
		return nil, err
	}
	meta := m.Metadata()
	if err := meta.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkSizer(m, &meta); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sum := sha256.Sum256(data)
	v := &version{name: name, id: hex.EncodeToString(sum[:6]), file: path, model: m, meta: meta,
		loaded: time.Now(), queue: make(chan *job, r.batch.queue), metrics: r.metrics.model(name)}
	return v, nil
}

// fileHead is what the registry reads of a model file: its format and
// kind.
type fileHead struct {
	Format string `json:"format"`
	Kind   string `json:"kind"`
}

// read reads the model file at path, once: its content and its head.
// The version is the content's hash and the kind's loader decodes the
// same bytes, so that a file written over in place between two reads
// cannot be served under another content's version, and a large file
// is not read twice.
func (r *registry) read(path string) (data []byte, head fileHead, err error) {
	data, err = readModelFile(path, r.maxFile)
	if err != nil {
		return nil, head, err
	}
	if err := json.Unmarshal(data, &head); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, head, fmt.Errorf("%s: not JSON: byte %d: %v", path, syn.Offset, err)
		}
	}
	return data, head, nil
}

// loadKind loads data, the file at path, with kind k, turning a panic
// of its loader into an error, so that a bad file cannot stop the
// server.
func loadKind(k Kind, path string, data []byte) (m Model, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: the loader of %q panicked: %v", path, k.Format, p)
		}
	}()
	return k.Load(path, data)
}

// formats lists the formats of the registry's kinds, for messages.
func (r *registry) formats() string {
	var names []string
	for _, k := range r.kinds {
		switch {
		case k.Format == "":
			names = append(names, "files without a format")
		case k.Kind != "":
			names = append(names, fmt.Sprintf("%q of kind %q", k.Format, k.Kind))
		default:
			names = append(names, fmt.Sprintf("%q", k.Format))
		}
	}
	return strings.Join(names, ", ")
}

// readModelFile reads a model file of at most limit bytes. Only
// regular files are models: opening a FIFO or a device may block for
// good, so the file is opened without blocking and then checked.
func readModelFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("not a regular file; only regular files are models")}
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a model file may have on this machine (its load takes about %d times its size, at most a quarter of the memory, and a file at most %d)",
			path, fi.Size(), limit, loadFactor, maxModelFile)
	}
	// Read in one buffer of the file's size, not one grown by doubling.
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		switch {
		case err == io.EOF:
			return data, nil
		case err != nil:
			return nil, err
		case len(data) == cap(data):
			return nil, fmt.Errorf("%s: the file grew past %d bytes while it was read", path, fi.Size())
		}
	}
}

// failure returns why the file of the named model, as it is now, did
// not load, or nil.
func (r *registry) failure(name string) error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e := r.entries[name]; e != nil {
		return e.failed
	}
	return nil
}

// retireAll retires every version and forgets the models, for the
// server's end, and returns the versions.
func (r *registry) retireAll() []*version {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []*version
	for _, e := range r.entries {
		if e.current != nil {
			e.current.retire()
			all = append(all, e.current)
		}
	}
	clear(r.entries)
	return all
}
