module example.com/asmlib

go 1.22
