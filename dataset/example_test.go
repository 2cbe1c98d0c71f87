package dataset_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/parametric-machines/machines/dataset"
)

func ExampleReadFrame() {
	const data = `sepal length,petal length,species
5.1,1.4,setosa
7.0,4.7,versicolor
6.3,,virginica
4.9,1.4,
`
	f, err := dataset.ReadFrame(strings.NewReader(data), "flowers.csv")
	if err != nil {
		log.Fatal(err)
	}
	t, err := f.Target("species", true)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("columns %q\n", f.Columns())
	fmt.Printf("classes %q, labels %v, rows %v, dropped %d\n", t.Classes, t.Labels, t.Rows, t.Dropped)
	length, err := f.Number(2, 1)
	fmt.Println(length, err)

	// Output:
	// columns ["sepal length" "petal length" "species"]
	// classes ["setosa" "versicolor" "virginica"], labels [0 1 2], rows [0 1 2], dropped 1
	// 0 flowers.csv: row 4, column "petal length": missing value
}

func ExampleFitEncoder() {
	const data = `len,supp,dose,fresh
4.2,VC,1.5,TRUE
11.5,OJ,NA,FALSE
7.3,VC,2,true
5.8,OJ,1,no
`
	f, err := dataset.ReadFrame(strings.NewReader(data), "teeth.csv")
	if err != nil {
		log.Fatal(err)
	}
	y, err := f.Target("len", false)
	if err != nil {
		log.Fatal(err)
	}
	e, _, err := dataset.FitEncoder(f, []string{"supp", "dose", "fresh"}, y.Rows)
	if err != nil {
		log.Fatal(err)
	}
	x, _, err := e.Transform(f, y.Rows)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("y = %v\n", y.Values)
	fmt.Printf("%q\n", e.Names())
	fmt.Printf("X = %v\n", mat.Formatted(x, mat.Prefix("    ")))

	// Output:
	// y = [4.2 11.5 7.3 5.8]
	// ["supp=OJ" "supp=VC" "dose" "dose:missing" "fresh"]
	// X = ⎡  0    1  1.5    0    1⎤
	//     ⎢  1    0  1.5    1    0⎥
	//     ⎢  0    1    2    0    1⎥
	//     ⎣  1    0    1    0    0⎦
}

// Dates, here written day first as much of the world writes them, become
// the days since 1970 followed by the sine and cosine of their phases in
// the cycles they show: these span two years, on different weekdays, with
// no time of day. The missing date is the mean one, and flagged.
func ExampleFitEncoder_dates() {
	const data = `sold,units
13/01/2022,5
02/07/2022,9
,7
20/01/2024,4
`
	f, err := dataset.ReadFrame(strings.NewReader(data), "sales.csv")
	if err != nil {
		log.Fatal(err)
	}
	e, _, err := dataset.FitEncoder(f, []string{"sold"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	x, _, err := e.Transform(f, nil)
	if err != nil {
		log.Fatal(err)
	}
	r := e.Rules()[0]
	fmt.Printf("%s %s, cycles %v\n", r.Kind, r.Order, r.Cycles)
	fmt.Printf("%q\n", e.Names())
	fmt.Printf("X = %.5g\n", mat.Formatted(x, mat.Prefix("    ")))

	// Output:
	// date dmy, cycles [{year 365.2425} {week 7}]
	// ["sold" "sold:year.sin" "sold:year.cos" "sold:week.sin" "sold:week.cos" "sold:missing"]
	// X = ⎡    19005    0.21153    0.97737          0          1          0⎤
	//     ⎢    19175  0.0039781   -0.99999    0.97493   -0.22252          0⎥
	//     ⎢    19307   -0.76373    0.64554    0.93087    0.36534          1⎥
	//     ⎣    19742    0.31952    0.94758    0.97493   -0.22252          0⎦
}

// A table as a spreadsheet in much of Europe writes it: semicolons
// between fields, decimal commas, points between thousands, percentages,
// and R's row names, read two rows at a time.
func ExampleNewFrameReader() {
	const data = `"";"price";"rate"
"a";1.234,50;17,5%
"b";980;20%
"c";2.100;5,25%
`
	r, err := dataset.NewFrameReader(strings.NewReader(data), "prices.csv", dataset.FrameOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("columns %q\n", r.Columns())
	for {
		f, err := r.Read(2)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		for row := range f.Len() {
			price, _ := f.Number(row, 1)
			rate, _ := f.Number(row, 2)
			fmt.Printf("line %d: %s %g %g\n", f.Line(row), f.Cell(row, 0), price, rate)
		}
	}

	// Output:
	// columns ["row.names" "price" "rate"]
	// line 2: a 1234.5 0.175
	// line 3: b 980 0.2
	// line 4: c 2100 0.0525
}

func ExampleParseError() {
	const data = "x1,x2,y\n0,0,-2\n0.5,1e999,-2.375\n"
	f, err := dataset.ReadFrame(strings.NewReader(data), "train.csv")
	if err != nil {
		log.Fatal(err)
	}
	_, err = f.Number(1, 1)
	fmt.Println(err)

	var pe *dataset.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Row, pe.Column, errors.Is(err, dataset.ErrInf))
	}

	// Output:
	// train.csv: row 3, column "x2": value is infinite: "1e999"
	// 3 x2 true
}

func ExamplePolynomialGrid() {
	X, y := dataset.PolynomialGrid(6)
	for i := range 3 {
		fmt.Printf("p(%.1f, %.1f) = %.2f\n", X.At(i, 0), X.At(i, 1), y[i])
	}
	fmt.Println(len(y), "points")

	// Output:
	// p(0.0, 0.0) = -2.00
	// p(0.0, 0.2) = -1.60
	// p(0.0, 0.4) = -1.20
	// 36 points
}

// A folder of class folders, colour PNG and JPEG images of 6x4 pixels,
// read with a fifth of each class held out for testing and resized to
// 3x2.
func ExampleLoadImageFolder() {
	f, err := dataset.LoadImageFolder("testdata/images/colour", dataset.FolderOptions{Rows: 2, Cols: 3, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("classes %q, %g held out\n", f.Names, f.Split)
	for _, im := range []*dataset.Images{f.Train, f.Test} {
		fmt.Printf("%d images of %d channels of %dx%d pixels, %d values each\n", im.N, im.Channels, im.Rows, im.Cols, im.ImageLen())
	}
	// Output:
	// classes ["blue" "green" "red"], 0.2 held out
	// 12 images of 3 channels of 2x3 pixels, 18 values each
	// 3 images of 3 channels of 2x3 pixels, 18 values each
}
