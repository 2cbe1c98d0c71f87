package infinite_test

import (
	"fmt"
	"log"
	"math/rand/v2"

	"github.com/parametric-machines/machines/kernel/infinite"
	"gonum.org/v1/gonum/mat"
)

// A machine with two anchors in ℝ² and constant coefficients (MaxFreq 1):
// anchor j pushes every state along cⱼ, the more the closer the state is
// to the anchor's own trajectory. Forward solves the anchors together:
// each moves by its own cⱼ at full strength, since k(x, x) = 1, and a
// little by the other's. Query solves new inputs against them; an
// anchor's own initial condition gives back its final state, and a point
// half-way between the anchors is pushed by both.
func ExampleNew() {
	mc, err := infinite.New(infinite.Architecture{Dim: 2, Anchors: 2, MaxFreq: 1})
	if err != nil {
		log.Fatal(err)
	}
	copy(mc.Coef, []float64{
		1, 0, // c₁: to the right
		0, -1, // c₂: down
	})
	psi := []float64{
		0, 0, // ψ₁
		3, 0, // ψ₂, far from ψ₁
	}
	tr, err := mc.Forward(psi)
	if err != nil {
		log.Fatal(err)
	}
	fin := tr.Final(nil)
	fmt.Printf("x₁(1) = (%.3f, %.3f)\n", fin[0], fin[1])
	fmt.Printf("x₂(1) = (%.3f, %.3f)\n", fin[2], fin[3])

	q, err := tr.Query(nil, []float64{0, 0, 1.5, 0})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("u(1) from (0, 0): (%.3f, %.3f)\n", q[0], q[1])
	fmt.Printf("u(1) from (1.5, 0): (%.3f, %.3f)\n", q[2], q[3])
	fmt.Printf("|f|² = %.3f\n", tr.Norm())

	// Output:
	// x₁(1) = (1.000, -0.040)
	// x₂(1) = (3.040, -1.000)
	// u(1) from (0, 0): (1.000, -0.040)
	// u(1) from (1.5, 0): (1.970, -0.402)
	// |f|² = 1.000
}

// Fit fits a classifier whose anchors are the training points: here two
// points from each of three well separated clusters in ℝ⁸, tested on 50
// fresh points from each.
func ExampleFit() {
	rnd := rand.New(rand.NewPCG(7, 1))
	centres := make([][]float64, 3)
	for c := range centres {
		centres[c] = make([]float64, 8)
		for j := range centres[c] {
			centres[c][j] = rnd.Float64()
		}
	}
	// blobs draws per points around each centre, labelled with its index.
	blobs := func(per int) (*mat.Dense, []int) {
		x := mat.NewDense(len(centres)*per, 8, nil)
		var labels []int
		for c, ctr := range centres {
			for p := range per {
				for j := range ctr {
					x.Set(c*per+p, j, ctr[j]+0.1*rnd.NormFloat64())
				}
				labels = append(labels, c)
			}
		}
		return x, labels
	}
	x, labels := blobs(2)
	xt, lt := blobs(50)

	cl, err := infinite.Fit(x, labels, 3, infinite.Config{Dim: 6, MaxFreq: 3, Cost: 0.01, Iterations: 60, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	acc, _, err := cl.Evaluate(xt, lt)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d anchors, %d coefficients\n", cl.Anchors.Architecture().Anchors, cl.Machine.NumParams())
	fmt.Printf("test accuracy %.2f\n", acc)

	// Output:
	// 6 anchors, 108 coefficients
	// test accuracy 1.00
}
