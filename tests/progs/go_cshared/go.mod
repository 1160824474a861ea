module go_cshared

go 1.19
