// Package finite implements machines of finite depth as layers: dense,
// convolutional and recurrent machines whose weight is strictly block
// triangular on a filtration.
//
// # The construction
//
// The paper builds a finite-depth network as a sum of independent
// square-zero machines on a filtration of the machine space (its sections
// 2.3 and 4.2). Here the machine space has D = sum(dims) channels, split
// into blocks of sizes dims = [d0, d1, ..., dn], and the machine is
//
//	y = y0 + W z,  z = z0 + s ⊙ sigma(y)
//
// with sigma pointwise, s a learned scaling (per channel or per entry) or
// 1, and W strictly block lower triangular: block i of y depends only on
// blocks j < i of z. The stable state is therefore exact after n+1 steps, one
// per block: z_0 = z0_0 + sigma(y0_0), and for i = 1..n
//
//	y_i = y0_i + sum_{j<i} W_ij z_j,  z_i = z0_i + s_i ⊙ sigma(y_i).
//
// Each step is one product of a block row of W with the blocks of z
// already computed; W is never formed as a masked copy, and its blocks on
// and above the diagonal are never read.
//
// The backward pass is a machine of the same kind. Given the cotangents
// dz and dy of the outputs z and y, the cotangents u of z and v of y solve
//
//	u = dz + W' v,  v = dy + s ⊙ sigma'(y) ⊙ u
//
// where W' is the transpose of W. For convolutions it is the flipped
// kernel: input and output channels swapped, spatial offsets negated. W'
// is strictly block triangular on the reversed filtration, so the solve
// runs for i = n..0. Then the cotangent of y0 is v and that of z0 is u.
// The gradient of W is v z' restricted to the blocks the filtration
// allows, one product per block row. That of s is the sum of
// sigma(y) ⊙ u over the samples (and, for a scaling per channel, the
// positions). The backward pass therefore costs about what the forward
// pass costs, plus the weight-gradient product. Dense and recurrent machines read W' from W
// in place, as transposed products; convolutional machines copy the
// flipped kernel once per backward pass.
//
// # Kinds
//
// NewDense makes a dense machine: W is a D x D matrix.
//
// NewConv makes a convolutional machine for 1-D or 2-D signals: the
// filtration runs over channels, and W holds a kernel of size 2*pad+1 (per
// signal dimension) for every pair of channels, zero-padded so that the
// state has the size of the signal. Signals shorter than the kernel are
// an error.
//
// NewRecur makes a recurrent machine: a causal convolution over time whose
// kernel spans the delays 0..pad. Its filtration runs over blocks of
// timeblock time steps and, within each, over the blocks of channels, in
// that order. A weight W[i, k, j] links output channel i, delay k and
// input channel j. With delay k < timeblock it may link two time steps
// of the same time block, so it is used only below the diagonal of the
// channel blocks (j in an earlier block than i). With delay
// k >= timeblock the source lies in an earlier time block, and every
// channel pair is used. The mask depends on the delay only, so the
// machine remains a convolution in time. With timeblock 1 it is the
// familiar recurrence: the present sees the lower channel blocks and the
// past sees all channels. The forward solve takes
// (n+1) * ceil(L/timeblock) steps, each over timeblock steps of all
// samples at once; the backward solve runs the same steps in reverse.
//
// Weights are initialised Glorot-uniform, with limit sqrt(6/(K*2D)) for K
// kernel positions, as if W were a full D x D (x K) operator.
//
// # Layout
//
// Batches hold their samples first, as everywhere in the library: Apply
// takes y0 (and z0) as N x C matrices for a dense machine and as
// N x C x L or N x C x H x W tensors for signals, the layout of ad's
// images (NCHW), and returns the state z with D channels in the same
// layout. C may be below D; the missing channels are zero.
//
// The solve itself works on channels x (positions x samples): a D x N·P
// matrix whose column p*N + b holds position p (row-major over the
// signal's shape) of sample b. With samples fastest, a shift in space
// or time moves whole runs of columns, and every step is one matrix
// product. A Layer converts on the way in and out; a Solver takes and
// returns matrices in this working layout directly.
//
// # Use
//
// Layer is a machine as a layer of a model (ad.Layer): its weight, only
// the entries the filtration uses, and its scaling live in an ad.Params,
// and it adds the machine to a graph as one operation with its own
// forward and backward passes. A Machine holds a full weight for the
// standalone uses: a Solver runs the passes on plain tensors, which is
// what the benchmarks time, and Save and Load keep a machine in a
// versioned JSON file (Layer.Machine gives a layer's).
package finite
