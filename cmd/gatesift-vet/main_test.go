package main

import "testing"

func TestIsVetInvocation(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"./..."}, false},
		{[]string{"-json", "./..."}, false},
		{[]string{"-flags"}, true},
		{[]string{"--flags"}, true},
		{[]string{"-checks=LE1*", "/tmp/go-build1/b001/vet.cfg"}, true},
		{[]string{"--", "-flags"}, false},
	} {
		if got := isVetInvocation(c.args); got != c.want {
			t.Errorf("isVetInvocation(%q) = %v, want %v", c.args, got, c.want)
		}
	}
	if !hasFullVersionFlag([]string{"-V=full"}) || hasFullVersionFlag([]string{"-V"}) {
		t.Error("hasFullVersionFlag")
	}
}

// prescan must find our flags wherever go vet puts them among the
// unitchecker flags, including ones it does not know.
func TestPrescan(t *testing.T) {
	var pre commonFlags
	ok := prescan([]string{"-json", "-c", "2", "-localsingleton=false", "-some-future-flag",
		"-config-digest=abc", "-checks", "LE1*", "x.cfg"}, &pre)
	if !ok || pre.configDigest != "abc" || pre.checks != "LE1*" {
		t.Errorf("prescan = %v, %+v", ok, pre)
	}
}
