module go_pure

go 1.19
