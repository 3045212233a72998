module github.com/lrsdl/lrsdl/examples

go 1.24.0

require (
	github.com/lrsdl/lrsdl v0.0.0
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/james-bowman/sparse v0.0.0-20260216202247-495ee4f84d35 // indirect
	github.com/sbinet/npyio v0.6.0 // indirect
	gonum.org/v1/netlib v0.0.0-20230729102104-8b8060e7531f // indirect
)

replace github.com/lrsdl/lrsdl => ../
