package exitblock

// BranchDepth is the depth (RetPt) of the i-th branch on the stack, bottom
// first: the node of the tree the branch is another child of. A branch of
// a spawn has its parent's partial block besides (its first decision), at
// the same node. Package shard splits the tree by these nodes.
func (ex *Explorer) BranchDepth(i int) int { return ex.stack[i].depth }
