package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var updateReadme = flag.Bool("update-readme", false, "rewrite README.md's sample output from a real run")

// The README's first command, and the text that introduces its output.
const (
	readmeCommand     = "go run ./cmd/gatesift-vet ./examples/flagged/"
	readmeOutputIntro = "The first prints (an unedited run):\n\n```text\n"
)

// TestReadmeSampleOutput runs the README's first command exactly as a user
// does, in the module root, and fails when the README's sample output is
// not its standard output byte for byte (go test ./cmd/gatesift-vet -run
// TestReadmeSampleOutput -update-readme rewrites it). It also checks what
// the README says about the exit status: the tool exits 3, which go run
// prints as "exit status 3" and turns into its own exit 1.
func TestReadmeSampleOutput(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readmePath := filepath.Join(root, "README.md")
	data, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	if !strings.Contains(readme, readmeCommand) {
		t.Fatalf("README.md no longer gives the command %q", readmeCommand)
	}
	start := strings.Index(readme, readmeOutputIntro)
	if start < 0 {
		t.Fatalf("README.md lacks %q", readmeOutputIntro)
	}
	start += len(readmeOutputIntro)
	end := strings.Index(readme[start:], "```\n")
	if end < 0 {
		t.Fatal("README.md: the sample output block does not end")
	}
	documented := readme[start : start+end]

	args := strings.Fields(readmeCommand)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 1 || !strings.HasSuffix(stderr.String(), "exit status 3\n") {
		t.Fatalf("%s: want go run's exit 1 after \"exit status 3\" (findings); err %v\nstderr:\n%s", readmeCommand, err, stderr.String())
	}
	for _, claim := range []string{"`exit status 3`", "the shell sees exit status 1"} {
		if !strings.Contains(readme, claim) {
			t.Errorf("README.md no longer says %s about the exit status", claim)
		}
	}

	if got := stdout.String(); got != documented {
		if *updateReadme {
			if err := os.WriteFile(readmePath, []byte(readme[:start]+got+readme[start+end:]), 0o666); err != nil {
				t.Fatal(err)
			}
			t.Logf("README.md: sample output rewritten")
			return
		}
		t.Errorf("README.md's sample output is not what %s prints; rerun with -update-readme, or paste:\n%s", readmeCommand, got)
	}
}
