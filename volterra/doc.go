// Package volterra solves the nonlinear Volterra equations of the second
// kind of section 3.2 of "Parametric machines" (Vertechi and Bergomi,
// arXiv 2007.02777),
//
//	u(t) = ψ(t) + ∫_{t₀}^t φ(t, s, u(s)) ds,  t ∈ [t₀, T],
//
// for u(t) ∈ ℝⁿ, and differentiates their solutions. The solution is the
// stable state of the Volterra machine φ with initial condition ψ.
//
// # General kernels
//
// Solve discretises the integral with the trapezoidal rule on a uniform
// grid of N intervals. The unknown value at each grid point is the fixed
// point of a map whose Lipschitz constant is λh/2, for a kernel with
// Lipschitz constant λ and h = (T - t₀)/N: the discrete counterpart of the
// decomposition of the paper into contractions on [tᵢ₋₁, tᵢ], which
// needs N > λ²(T - t₀)². The method is second order, costs N²/2 kernel
// evaluations, and reports a fixed point that fails to converge with a
// *ContractionError at its grid point.
//
// # Separable kernels
//
// For a kernel φ(t, s, v) = Σⱼ B(φⱼ(s, v), cⱼ(t)) (a Separable),
// Theorem 5 of the paper turns the equation into the ODE
//
//	zⱼ' = φⱼ(t, u(t)),  zⱼ(t₀) = 0,  u(t) = ψ(t) + Σⱼ B(zⱼ(t), cⱼ(t)),
//
// which SolveSeparable integrates with package ode: by default with RK4,
// one step per grid interval, at a cost linear in N and fourth order
// accuracy. B is a matrix-vector product, which covers any bilinear map
// and, with scalar terms, the infinite-depth kernel machine of section 4.3,
// or an elementwise product. A neural ODE u' = f(t, u) is the special case
// NeuralODE with the constant free term Const(u₀).
//
// # Gradients
//
// Solution.Gradient maps the gradient of a loss with respect to the
// solution on the grid to gradients with respect to the parameters of the
// free term (a ParamForcing) and of the kernel (a ParamKernel or a
// ParamSeparable). For Solve it is the exact adjoint of the discrete
// scheme; for SolveSeparable it goes through the ODE, by backpropagation
// through the stored steps or by the continuous adjoint method, as
// Settings.Grad selects (see package ode for their costs).
//
// # Kernels written with package ad
//
// The kernel interfaces ask for vector-Jacobian products. NewGraphKernel
// and NewGraphSeparable instead take φ, or the terms Φ and coefficients
// C of a separable kernel, written with the operations of the
// reverse-mode engine, package ad, which derives the products: each
// function is recorded once on a graph and replayed, without allocating,
// by every evaluation and VJP. The parameters are a flat []float64 read
// in place, as optimisers such as optim.Minimize expect. NeuralODE of an
// ode.GraphSystem is the same for a neural ODE. The engine pays for each
// operation it replays, so a hand-written kernel remains the fast path
// for a small fixed kernel; see BenchmarkGraphKernel.
//
// # Batches
//
// Equation.Batch and SeparableEquation.Batch solve several equations with
// the same kernel and different free terms together, as one state of
// Batch·n entries; the parameter gradients are summed over the members.
// A separable kernel whose terms touch few of its parameters at a time
// implements PhiVJPAdder, so that each member adds to the sum only
// those.
package volterra
