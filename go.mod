module github.com/xbtest/xbtest

go 1.26.0

require (
	github.com/spf13/pflag v1.0.10
	go.uber.org/zap v1.28.0
	golang.org/x/tools v0.52.0
)

require (
	go.uber.org/multierr v1.10.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
