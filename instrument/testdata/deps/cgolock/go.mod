module example.com/cgolock

go 1.22

require example.com/locker v1.0.0

replace example.com/locker => ../locker
