// Package ode solves initial value problems y' = f(t, y), y(t₀) = y₀ for
// a state y in ℝⁿ, and differentiates their solutions.
//
// # Solvers
//
// DormandPrince is the adaptive Dormand–Prince 5(4) pair. Each step is
// fifth order, the embedded fourth order solution estimates the error,
// and the step size keeps that estimate within Settings.RTol and
// Settings.ATol. The first step is chosen from the problem unless
// Settings.H0 gives it. A step size falling below Settings.MinStep (or
// below the resolution of t) ends the solve with a *StepSizeError.
// RK4 is the classical fourth order method with one step per interval of
// the given grid.
//
// Both return the states at the output times, which the steps hit
// exactly. Both keep the steps for Solution.At, the continuous extension
// of the method: fourth order for Dormand–Prince, third for RK4. A NaN or
// infinite state or derivative gives a *NonFiniteError with the time
// where it appeared.
//
// Everything is float64 and a state is a []float64. A batch of states is
// one larger state: stack the members with Batch, or write a System whose
// state is the concatenation. Adaptive steps are then shared by the
// members.
//
// # Gradients
//
// A ParamSystem supplies vector-Jacobian products of f with respect to y
// and to its parameters p. For one, Solution.Gradient turns the gradient
// of a loss with respect to the outputs into the gradients with respect
// to y₀ and p, in one of two ways:
//
//   - Backprop runs reverse mode through the recorded steps, stage by
//     stage. It gives the exact gradient of the computed solution, the
//     step sizes held fixed, in time comparable with the solve. Its
//     memory is O(steps·stages·n), for the record of the steps.
//   - Adjoint solves the adjoint equations backward in time, recomputing
//     y on the way, with the method and tolerances of the forward solve.
//     Its memory is O(n + #p), whatever the number of steps (set
//     Settings.DropSteps to not record them at all), at about twice the
//     cost of the solve. It approximates the gradient of the exact
//     solution to the accuracy of the backward solve. Its backward
//     recomputation of y is unreliable for strongly contracting flows.
//
// As a rule: Backprop when the steps fit in memory, which makes the
// gradient consistent with the loss that was computed; Adjoint for long
// solves of large states.
//
// # Right-hand sides written with package ad
//
// A hand-written ParamSystem supplies its own VJP. NewGraphSystem instead
// takes f(t, y; θ) written with the operations of the reverse-mode
// engine, package ad, as in a neural ODE. The graph is recorded once;
// Deriv replays its forward pass, and VJP its backward pass seeded with
// the cotangent, without allocating. The result is a ParamSystem like any
// other, for both solvers and both gradient methods. Its parameters are a
// flat []float64 that an optimiser such as optim.Minimize updates in
// place. A hand-written system remains the faster choice for a small
// fixed right-hand side, where the engine's cost per operation dominates
// (BenchmarkGraphSystem).
package ode
