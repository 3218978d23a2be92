module example.com/cgolib

go 1.22
