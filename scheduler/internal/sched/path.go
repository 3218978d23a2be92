package sched

// Decision is one step of a path: Thread (a creation index) ran one atomic
// block, which ended at event number End of the execution, taking Choices
// at the notify, select and timer choice points inside it. A path is a
// []Decision; replaying one (the engine) reproduces the execution up to
// its last End, which is how a strategy backs up to a branch point.
type Decision struct {
	Thread  int32
	End     int64
	Choices []int32
	Mid     bool // ends at an event that is not a scheduling point (the last step of a finding's schedule)
	Tick    bool // virtual time advanced after the block (see package scheduler/internal/vclock): it cannot merge with the next
}

// Blocked is a member of a lock's block set: a thread that will not be
// able to acquire Lock (an object id) until that lock is released.
type Blocked struct {
	Thread int32
	Lock   int32
	PC     uintptr // where it tried, for reports
}
