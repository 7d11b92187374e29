package signals

import (
	"embed"
	"io/fs"
	"path"
	"reflect"
	"testing"
)

//go:embed kb/*.yaml
var kbFiles embed.FS

// loadFS parses the YAML files of dir the way Builtin did before the
// knowledge base was compiled in: sorted by name, each strictly, merged.
func loadFS(fsys fs.FS, dir string) (*Knowledge, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	k := new(Knowledge)
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		part, err := ParseKnowledge("signals/"+name, data)
		if err != nil {
			return nil, err
		}
		k.Merge(part)
	}
	return k, nil
}

// The compiled-in knowledge base is the YAML's, entry for entry; when this
// fails after an edit of kb/*.yaml, run `go generate ./signals`.
func TestBuiltinMatchesYAML(t *testing.T) {
	want, err := loadFS(kbFiles, "kb")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	ws, gs := want.sections(), got.sections()
	if len(want.Effects) == 0 || len(want.Schedulers) == 0 {
		t.Fatal("the YAML has no effects or schedulers: the comparison would prove nothing")
	}
	for i := range ws {
		if !reflect.DeepEqual(*gs[i], *ws[i]) {
			t.Errorf("section %d differs from kb/*.yaml (%d entries compiled in, %d in the YAML): run go generate ./signals", i, len(*gs[i]), len(*ws[i]))
		}
	}
}
