package engine

// SetFaultHook sets faultHook (run.go) for the external tests.
func SetFaultHook(f func()) { faultHook = f }
