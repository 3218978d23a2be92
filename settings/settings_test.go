package settings_test

import (
	"encoding"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/xbtest/xbtest/eraser"
	"github.com/xbtest/xbtest/settings"
)

type textValue interface {
	encoding.TextMarshaler
	String() string
}

// Every name of every enum reads back as the same value, and what it
// writes is its name.
func TestEnumsRoundTrip(t *testing.T) {
	check := func(v textValue, parse func([]byte) (textValue, error)) {
		t.Helper()
		b, err := v.MarshalText()
		if err != nil || string(b) != v.String() {
			t.Errorf("%v: MarshalText = %q, %v", v, b, err)
			return
		}
		back, err := parse(b)
		if err != nil || back != v {
			t.Errorf("%q reads back as %v, %v", b, back, err)
		}
	}
	for a := settings.ExitBlock; a <= settings.Brute; a++ {
		check(a, func(b []byte) (textValue, error) { var x settings.Algorithm; err := x.UnmarshalText(b); return x, err })
	}
	for m := settings.SC; m <= settings.PSO; m++ {
		check(m, func(b []byte) (textValue, error) { var x settings.Memory; err := x.UnmarshalText(b); return x, err })
	}
	for g := settings.Sync; g <= settings.Access; g++ {
		check(g, func(b []byte) (textValue, error) {
			var x settings.Granularity
			err := x.UnmarshalText(b)
			return x, err
		})
	}
	for c := settings.FullCAS; c <= settings.RelaxedCAS; c++ {
		check(c, func(b []byte) (textValue, error) { var x settings.CAS; err := x.UnmarshalText(b); return x, err })
	}
	for c := settings.Auto; c <= settings.Fork; c++ {
		check(c, func(b []byte) (textValue, error) { var x settings.Checkpoint; err := x.UnmarshalText(b); return x, err })
	}
	for st := settings.DFS; st <= settings.Random; st++ {
		check(st, func(b []byte) (textValue, error) { var x settings.Strategy; err := x.UnmarshalText(b); return x, err })
	}
	if _, err := settings.Algorithm(7).MarshalText(); err == nil {
		t.Error("an algorithm out of range marshals")
	}
}

func TestUnknownNamesAreRefused(t *testing.T) {
	for _, c := range []struct {
		v    encoding.TextUnmarshaler
		in   string
		want string
	}{
		{new(settings.Algorithm), "exitblock-xx", `unknown algorithm "exitblock-xx" (want exitblock, exitblock-rw, exitblock-dd, exitblock-rwdd or brute)`},
		{new(settings.Memory), "rmo", `unknown memory model "rmo" (want sc, tso or pso)`},
		{new(settings.Granularity), "", `unknown granularity "" (want sync or access)`},
		{new(settings.Checkpoint), "snapshot", `unknown checkpoint strategy "snapshot" (want rerun, fork or auto)`},
		{new(settings.Strategy), "bfs", `unknown strategy "bfs" (want dfs, pb, pct or random)`},
	} {
		err := c.v.UnmarshalText([]byte(c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("%T %q: error %v, want %s", c.v, c.in, err, c.want)
		}
	}
}

func TestTimers(t *testing.T) {
	for _, c := range []struct {
		in   string
		want settings.Timers
	}{{"synctest", settings.Synctest}, {"eager", settings.Eager}, {"1ms", settings.Timers(time.Millisecond)}, {"250us", settings.Timers(250 * time.Microsecond)}} {
		var got settings.Timers
		if err := got.UnmarshalText([]byte(c.in)); err != nil || got != c.want {
			t.Errorf("%q reads as %v, %v; want %v", c.in, got, err, c.want)
		}
		if back := got.String(); back != c.in && !(c.in == "250us" && back == "250µs") {
			t.Errorf("%v prints as %q, want %q", time.Duration(got), back, c.in)
		}
	}
	for _, bad := range []string{"", "0", "-1ms", "soon", "eagerly"} {
		var got settings.Timers
		if err := got.UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("timers %q accepted", bad)
		}
	}
	if h := settings.Timers(time.Millisecond).Horizon(); h != time.Millisecond {
		t.Errorf("1ms's horizon is %v", h)
	}
}

// The JSON form is what the command sends to the test binary and what a
// schedule file holds: names, not numbers, and it reads back unchanged.
func TestJSON(t *testing.T) {
	s := settings.Default()
	s.Algorithm, s.Memory, s.Race, s.Checkpoint, s.Timers = settings.Brute, settings.PSO, eraser.Lockset, settings.Fork, settings.Eager
	s.MaxSchedules, s.Timeout = 5, 3*time.Second
	s.Strategy, s.Seed, s.Samples, s.PCTDepth = settings.PCT, 42, 100, 2
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"algorithm":"brute"`, `"memory":"pso"`, `"race":"lockset"`, `"checkpoint":"fork"`, `"timers":"eager"`, `"granularity":"sync"`, `"max_schedules":5`, `"strategy":"pct"`, `"seed":42`, `"samples":100`, `"pct_depth":2`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
	var back settings.Settings
	if err := json.Unmarshal(b, &back); err != nil || back != s {
		t.Errorf("read back as %+v, %v; want %+v", back, err, s)
	}
	if err := json.Unmarshal([]byte(`{"algorithm":"exitblock-xx"}`), &back); err == nil {
		t.Error("an unknown algorithm in JSON is accepted")
	}
}

// The rules that tie settings together are applied by Normalize, and only
// there: store buffers imply access granularity, which implies SyncDeps.
func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		memory          settings.Memory
		granularity     settings.Granularity
		wantGranularity settings.Granularity
		wantSyncDeps    bool
	}{
		{settings.SC, settings.Sync, settings.Sync, false},
		{settings.SC, settings.Access, settings.Access, true},
		{settings.TSO, settings.Sync, settings.Access, true},
		{settings.PSO, settings.Sync, settings.Access, true},
	} {
		s := settings.Default()
		s.Memory, s.Granularity, s.SyncDeps = c.memory, c.granularity, false
		if err := s.Normalize(); err != nil {
			t.Fatal(err)
		}
		if s.Granularity != c.wantGranularity || s.SyncDeps != c.wantSyncDeps {
			t.Errorf("%s/%s: normalised to %s, sync deps %v; want %s, %v", c.memory, c.granularity, s.Granularity, s.SyncDeps, c.wantGranularity, c.wantSyncDeps)
		}
	}
	// A relaxed CAS is PSO's: under SC and TSO the paper's two CAS
	// variants coincide, so the setting normalises away.
	for m, want := range map[settings.Memory]settings.CAS{settings.SC: settings.FullCAS, settings.TSO: settings.FullCAS, settings.PSO: settings.RelaxedCAS} {
		s := settings.Default()
		s.Memory, s.CAS = m, settings.RelaxedCAS
		if err := s.Normalize(); err != nil || s.CAS != want {
			t.Errorf("-memory %s -cas relaxed: normalised to %s (%v), want %s", m, s.CAS, err, want)
		}
	}
	for _, bad := range []func(*settings.Settings){
		func(s *settings.Settings) { s.MaxSteps = -1 },
		func(s *settings.Settings) { s.FairBlocks = -1 },
		func(s *settings.Settings) { s.MaxSchedules = -1 },
		func(s *settings.Settings) { s.Timeout = -time.Second },
		func(s *settings.Settings) { s.Watchdog = -time.Second },
	} {
		s := settings.Default()
		bad(&s)
		if err := s.Normalize(); err == nil {
			t.Errorf("%+v: negative bound accepted", s)
		}
	}
}

// A schedule file without a setting means what xbtest did before the
// setting existed.
func TestFileDefaults(t *testing.T) {
	f := settings.FileDefaults()
	if f.Timers != settings.Synctest || f.FairBlocks != 100 || f.Algorithm != settings.ExitBlockRWDD || f.Race != eraser.HB {
		t.Errorf("file defaults %+v", f)
	}
	var s settings.Semantics = settings.FileDefaults()
	if err := json.Unmarshal([]byte(`{"algorithm":"exitblock-dd","memory":"tso"}`), &s); err != nil {
		t.Fatal(err)
	}
	if s.Algorithm != settings.ExitBlockDD || s.Memory != settings.TSO || s.Timers != settings.Synctest || s.FairBlocks != 100 {
		t.Errorf("an old file reads as %+v", s)
	}
}
