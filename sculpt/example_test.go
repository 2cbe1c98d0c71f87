package sculpt_test

import (
	"fmt"
	"log"
	"os"

	"github.com/parametric-machines/machines/sculpt"
)

// The generous architecture for 28x28 grey images and ten classes, with
// four hidden nodes: the nodes zigzag between resolutions, each reads the
// previous node and every earlier node of its size through a 3x3
// convolution, and each has a linear head into the logits. Count gives
// the live edges, their weights and their FLOPs per image.
func ExampleGenerous() {
	a := sculpt.Generous(1, 28, 28, 10, 4, 4)
	for k, n := range a.Nodes {
		fmt.Printf("node %d: %s %dx%d -> %dx%d\n", k+1, n.Resample, n.In[0], n.In[1], n.Out[0], n.Out[1])
	}
	for i, e := range a.Edges {
		fmt.Printf("%-4s %-7s %d -> %d, %d weights\n", e.Name, e.Kind, e.From, e.To, a.EdgeParams(i))
	}
	edges, params, flops := a.Count(nil)
	fmt.Printf("%d edges, %d weights, %d FLOPs per image\n", edges, params, flops)

	// Output:
	// node 1: maxpool 28x28 -> 14x14
	// node 2: identity 14x14 -> 14x14
	// node 3: maxpool 14x14 -> 7x7
	// node 4: identity 7x7 -> 7x7
	// c0.1 conv3x3 0 -> 1, 36 weights
	// c1.2 conv3x3 1 -> 2, 144 weights
	// c1.3 conv3x3 1 -> 3, 144 weights
	// c2.3 conv3x3 2 -> 3, 144 weights
	// c3.4 conv3x3 3 -> 4, 144 weights
	// h1   linear  1 -> 5, 7840 weights
	// h2   linear  2 -> 5, 7840 weights
	// h3   linear  3 -> 5, 1960 weights
	// h4   linear  4 -> 5, 1960 weights
	// 9 edges, 20212 weights, 279104 FLOPs per image
}

// Pruning removes edges by name; a node whose inputs or outputs are all
// gone goes with them. Here pruning the convolution into node 1 would
// cut every node off the input, while pruning c2.3 and h1 leaves seven
// edges, drawn for Graphviz by WriteDOT.
func ExampleArch_WriteDOT() {
	a := sculpt.Generous(1, 28, 28, 10, 4, 4)
	edges, _, _ := a.Count(map[string]bool{"c0.1": true})
	fmt.Println("without c0.1:", edges, "edges")

	pruned := map[string]bool{"c2.3": true, "h1": true}
	edges, params, _ := a.Count(pruned)
	fmt.Println("without c2.3 and h1:", edges, "edges,", params, "weights")
	if err := a.WriteDOT(os.Stdout, pruned); err != nil {
		log.Fatal(err)
	}

	// Output:
	// without c0.1: 0 edges
	// without c2.3 and h1: 7 edges, 12228 weights
	// digraph sculpt {
	// 	rankdir=LR;
	// 	node [shape=box];
	// 	N0 [label="x 28x28"];
	// 	N1 [label="n1 28x28 pool"];
	// 	N2 [label="n2 14x14"];
	// 	N3 [label="n3 14x14 pool"];
	// 	N4 [label="n4 7x7"];
	// 	N5 [label="logits"];
	// 	N0 -> N1 [label="c0.1", color=blue];
	// 	N1 -> N2 [label="c1.2", color=blue];
	// 	N1 -> N3 [label="c1.3", color=blue];
	// 	N3 -> N4 [label="c3.4", color=blue];
	// 	N2 -> N5 [label="h2", color=red];
	// 	N3 -> N5 [label="h3", color=red];
	// 	N4 -> N5 [label="h4", color=red];
	// }
}
