module github.com/xbtest/xbtest

go 1.26
