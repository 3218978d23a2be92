module example.com/pure

go 1.22
