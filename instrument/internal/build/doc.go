// Package build tells the go command how to build the packages that
// package instrument rewrote, without modifying the user's files: the
// rewritten files import github.com/xbtest/xbtest/scheduler, which the
// user's module does not require, and some of them belong to modules the
// go command does not let an overlay replace.
//
//   - Rewritten files go to a cache directory, under names derived from
//     their content, and replace the originals through an overlay
//     (`go test -overlay`, overlay.go): the source tree stays as it is,
//     and the build cache recognizes an unchanged rewrite in the next run.
//   - A temporary go.mod (`-modfile`, modfile.go), a copy of the main
//     module's with its go.sum, requires the scheduler and replaces it by a
//     copy of the scheduler's packages with a go.mod of its own
//     (xbtest.go), so that the user's go.sum needs no new entries. In
//     xbtest's own module nothing is needed.
//   - The go command does not overlay the module cache's files: a module
//     of the module cache that has packages to rewrite is copied, the
//     rewrite writes into the copy, and the temporary go.mod replaces the
//     module by it (modcache.go). Copies of a module@version are kept
//     across runs in a persistent cache (depcache.go).
//   - -modfile cannot be used in workspace mode: a temporary go.work,
//     named by GOWORK, does the same job (modfile.go, setupWorkspace).
//   - A module built from vendor/ cannot list the scheduler in
//     vendor/modules.txt: it is built in module mode instead, each
//     vendored module replaced by its directory under vendor/ (vendor.go).
//
// Package instrument, its only user, calls GoEnv, MainModule (and
// GetTestDeps when the tests of a dependency's packages need modules the
// main module lacks), LocateXBTest and OpenDepCache once; then, for each
// attempt at rewriting, NewWorkspace, CopyModules, Workspace.Add for every
// rewritten file, PublishCopies, SetupModule and WriteOverlay, whose
// results become the plan's go test flags and environment, or
// DropUnpublished when the attempt fails. ModuleGo and VersionLess tell
// the rewrite a module's language version.
//
// Errors begin with "instrument:": they are those of instrument.Prepare.
package build
