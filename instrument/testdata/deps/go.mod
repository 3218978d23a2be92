module example.com/deps

go 1.22

require (
	example.com/asmlib v1.0.0
	example.com/cgolib v1.0.0
	example.com/cgolock v1.0.0
	example.com/daemon v1.0.0
	example.com/helper v1.0.0
	example.com/locker v1.0.0
	example.com/odd v1.0.0
	example.com/pool v1.0.0
	example.com/pure v1.0.0
)

replace (
	example.com/asmlib => ./asmlib
	example.com/cgolib => ./cgolib
	example.com/cgolock => ./cgolock
	example.com/daemon => ./daemon
	example.com/helper => ./helper
	example.com/locker => ./locker
	example.com/odd => ./odd
	example.com/pool => ./pool
	example.com/pure => ./pure
)
