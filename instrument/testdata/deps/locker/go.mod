module example.com/locker

go 1.22
