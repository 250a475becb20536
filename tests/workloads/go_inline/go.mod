module goinline

go 1.19
