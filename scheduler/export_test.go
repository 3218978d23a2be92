package scheduler

// The exhaustive oracle as seen from the external tests: they cannot set the
// unexported fields.

// OracleConfig returns a configuration that enumerates every order of atomic
// blocks; with spawns, every order around go statements too.
func OracleConfig(spawns bool) Config {
	cfg := DefaultConfig()
	cfg.Algorithm = ExitBlockDD
	cfg.oracle, cfg.oracleSpawns = true, spawns
	return cfg
}

// ThesisConfig returns the configuration of algorithm a without the spawn
// branches xbtest adds for Go: the thesis's algorithm exactly.
func ThesisConfig(a Algorithm) Config {
	cfg := DefaultConfig()
	cfg.Algorithm = a
	cfg.noSpawnBranches = true
	return cfg
}
