package singletable_test

func strp(v string) *string { return &v }
