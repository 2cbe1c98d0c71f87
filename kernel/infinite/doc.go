// Package infinite implements the infinite-depth kernel machines of
// section 4.3 of "Parametric machines" (Vertechi and Bergomi, arXiv
// 2007.02777).
//
// # The machine
//
// The space is X = L²([0, 1], ℝⁿ), filtered by Xₜ = L²([0, t], ℝⁿ), and the
// operator-valued kernel is
//
//	(K(x₁, x₂)x)(t) = ∫₀ᵗ k(x₁(s), x₂(s)) ds · x(t),
//
// with the Gaussian k(u, v) = exp(-γ|u - v|²) (Architecture.Gamma, by default
// γ = 1/2). A machine f = Σⱼ K(·, xⱼ)cⱼ has m anchors xⱼ and coefficients
// in a truncated Fourier basis,
//
//	cⱼ(t) = Σ_{k<MaxFreq} c_jk·cos(2πkt)  [+ Σ_{0<k<MaxFreq} s_jk·sin(2πkt)],  c_jk, s_jk ∈ ℝⁿ.
//
// The paper's truncated Fourier series has both. By default this
// package, like the authors' code, keeps the cosines only, which
// restricts the cⱼ to functions symmetric about t = 1/2;
// Architecture.Sine adds the sines.
//
// The machine's stable state with initial condition ψ solves the
// Volterra equation of eq. 10 of the paper,
//
//	u(t) = ψ(t) + ∫₀ᵗ Σⱼ k(u(s), xⱼ(s))·cⱼ(t) ds.
//
// Its kernel is separable, so Theorem 5 turns it into an ODE, which
// volterra.SolveSeparable integrates. By default it takes RK4 on a fixed
// grid, with gradients by backpropagation through the steps. With
// Architecture.Tol it does as the authors did: adaptive Dormand–Prince
// with adjoint gradients. Here ψ is constant in t.
//
// By the representer theorem (Theorem 4), the machine that minimises a
// loss of the training inputs' stable states plus its norm is anchored
// at the training inputs' own trajectories. Machine.Forward therefore
// solves the training inputs together, as one equation in (x₁, …, xₘ),
// and returns their Trajectory. Trajectory.Query then solves new inputs
// against those anchors. The anchors are solved on twice as many steps
// as the queries, so that every RK4 stage of a query finds them on the
// grid.
//
// # The norm
//
// The squared RKHS norm of f is Σᵢⱼ ⟨cᵢ, K(xᵢ, xⱼ)cⱼ⟩_X. The operator
// K(xᵢ, xⱼ) multiplies by zᵢⱼ(t) = ∫₀ᵗ k(xᵢ(s), xⱼ(s)) ds, the very state
// of the ODE of Theorem 5, and Σⱼ zᵢⱼ(t)cⱼ(t) = xᵢ(t) - ψᵢ, so
//
//	|f|²_H = ∫₀¹ Σᵢ ⟨cᵢ(t), xᵢ(t) - ψᵢ⟩ dt,
//
// the continuous form of the Σᵢ⟨valᵢ, Cᵢ⟩ of the finite-depth machine.
// Trajectory.Norm computes it with Simpson's rule on the anchors' grid.
//
// # As a layer
//
// Forward maps the anchors' initial conditions to their stable states;
// Trajectory.Backward is its vector-Jacobian product, with respect to the
// initial conditions and the coefficients, for a loss of the final states
// plus a multiple of the norm. A layer before the machine (an input map,
// or anything else) receives the gradient with respect to ψ and carries
// on. Query solves new inputs with the machine held fixed.
//
// # As a layer with learned anchors
//
// Inside a bigger model trained by minibatches, the training inputs are
// not all at hand. Layer anchors the machine instead at a fixed number
// of learned points, as the authors allow: the anchors' initial
// conditions ψⱼ are parameters, trained with the coefficients and the
// rest of the model. For every minibatch, Layer.Apply solves the anchors
// as Forward does and the batch against them as Query does. It returns
// the batch's final states and |f|²_H. Its backward pass carries the
// gradient through the anchors' own solve to their ψⱼ and the
// coefficients.
//
// # Classification
//
// Classifier is the set-up of the paper's one-shot experiment:
//
//   - an augmenter into ℝⁿ, either linear, ψ(x) = A·x + b, or the
//     authors' convolution (3×3, stride 2, by default 8·MaxFreq channels,
//     then a ReLU and ψ = A·features + b);
//   - the machine, anchored at the training images (the representer
//     theorem) or at a fixed number of learned anchors (a Layer), whose
//     cost grows linearly with the training set rather than
//     quadratically;
//   - as class scores, the last Classes coordinates of the final state
//     u(1). This read-out is fixed: the machine itself has to move each
//     input's state to its class.
//
// The whole model is a graph of the engine (package ad) with its
// parameters in one ad.Params, trained by train.Run. Fit minimises the
// mean softmax cross-entropy of the training images plus
// Cost·(|f|²_H + |A|²) with Adam. The defaults are the authors' learning
// rate 0.04 and decoupled weight decay 0.01.
package infinite
