package scheduler

import "fmt"

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

// Paths explores body under cfg and returns every complete path, as a
// string, that ended with no thread delayed, and how many paths ended with
// threads delayed.
func Paths(body func(*T), cfg Config) (maximal []string, partial int) {
	cfg.onPath = func(p []decision, delayed int) {
		if delayed > 0 {
			partial++
			return
		}
		var b []byte
		for _, d := range p {
			b = fmt.Appendf(b, "%d@%d%v ", d.thread, d.end, d.choices)
		}
		maximal = append(maximal, string(b))
	}
	Explore("paths", body, cfg)
	return maximal, partial
}
