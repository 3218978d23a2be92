module example.com/dep

go 1.26.0

require (
	go.uber.org/atomic v1.12.0
	golang.org/x/sync v0.24.0
)
