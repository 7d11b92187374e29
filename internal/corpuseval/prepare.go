package main

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// readyMarker is written into a module copy once it has a go.mod and all its
// dependencies are in the module cache; its presence makes later runs skip
// the download, copy and tidy steps.
const readyMarker = ".prefetched"

// noSumDB lists module path prefixes whose checksums are not looked up in
// the checksum database (GONOSUMDB). gitea's vanity host is not served by it,
// and in this environment the database (reached through the module proxy)
// answers 404 for kyverno's and gocron-redis-lock v1's releases; the module zips are still verified by
// the go.sum of the module being analyzed for everything it depends on.
var noSumDB = "code.gitea.io,github.com/kyverno/kyverno,github.com/go-co-op/gocron-redis-lock"

// goEnv is the environment for every go command run on corpus modules.
// -mod=mod lets a module whose go.sum is incomplete for our build still load;
// GOTOOLCHAIN=local keeps the analyzer's type checker and the go command at
// the same version; GOWORK=off stops a go.work above the work dir from
// capturing the copies.
func goEnv() []string {
	env := os.Environ()
	nosum := noSumDB
	if v := os.Getenv("GONOSUMDB"); v != "" {
		nosum = v + "," + nosum
	}
	flags := "-mod=mod -buildvcs=false"
	return append(env, "GOFLAGS="+flags, "GONOSUMDB="+nosum, "GOTOOLCHAIN=local", "GOWORK=off")
}

// cmdResult is what a finished command left behind.
type cmdResult struct {
	Stdout   []byte
	Stderr   string
	ExitCode int
	Elapsed  time.Duration
}

// run executes name args in dir with the corpus environment and a timeout.
// A non-zero exit is not an error here; callers decide what it means.
func run(ctx context.Context, timeout time.Duration, dir string, name string, args ...string) (cmdResult, error) {
	return runEnv(ctx, timeout, dir, nil, name, args...)
}

// runEnv is run with extra environment variables (a module's env in
// corpus/firstcontact.yaml), which override the corpus environment.
func runEnv(ctx context.Context, timeout time.Duration, dir string, extra []string, name string, args ...string) (cmdResult, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(goEnv(), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := cmdResult{Stdout: stdout.Bytes(), Stderr: stderr.String(), Elapsed: time.Since(start)}
	if ctx.Err() == context.DeadlineExceeded {
		return res, fmt.Errorf("%s %s: timed out after %s", name, strings.Join(args, " "), timeout)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		res.ExitCode = exit.ExitCode()
		return res, nil
	}
	return res, err
}

// mustRun is run where any non-zero exit is a failure.
func mustRun(ctx context.Context, timeout time.Duration, dir string, name string, args ...string) (cmdResult, error) {
	res, err := run(ctx, timeout, dir, name, args...)
	if err == nil && res.ExitCode != 0 {
		err = fmt.Errorf("%s %s (in %s): exit %d: %s", name, strings.Join(args, " "), dir, res.ExitCode, tail(res.Stderr, 2000))
	}
	return res, err
}

// copyDirName names the writable copy of module@version inside the work dir.
// "/" is replaced so that every module is one flat folder.
func copyDirName(moduleAtVersion string) string {
	return strings.ReplaceAll(moduleAtVersion, "/", "!")
}

// prepareModule returns the writable copy of module@version under
// workdir/src, creating it when needed: download into the module cache, copy
// (the cache is read-only, and go mod tidy must be able to write), go mod
// init + tidy when the module predates modules, then go mod download of all
// dependencies so the analysis itself needs no network.
func prepareModule(ctx context.Context, workdir, mod string, timeout time.Duration, logf func(string, ...any)) (string, error) {
	dst := filepath.Join(workdir, "src", copyDirName(mod))
	if _, err := os.Stat(filepath.Join(dst, readyMarker)); err == nil {
		return dst, nil
	}
	res, err := run(ctx, timeout, workdir, "go", "mod", "download", "-json", mod)
	if err != nil {
		return "", err
	}
	var info struct {
		Dir   string
		Zip   string
		Error string
	}
	if err := json.Unmarshal(res.Stdout, &info); err != nil && res.ExitCode == 0 {
		return "", fmt.Errorf("go mod download -json %s: %w", mod, err)
	}
	newerGo := info.Error != "" && info.Zip != "" && strings.Contains(info.Error, "requires go >=")
	if res.ExitCode != 0 && !newerGo {
		return "", fmt.Errorf("go mod download -json %s (in %s): exit %d: %s %s", mod, workdir, res.ExitCode, info.Error, tail(res.Stderr, 2000))
	}
	if !newerGo && (info.Error != "" || info.Dir == "") {
		return "", fmt.Errorf("go mod download %s: %s", mod, info.Error)
	}
	logf("downloaded %s in %s", mod, res.Elapsed.Round(time.Millisecond))

	if err := os.RemoveAll(dst); err != nil {
		return "", err
	}
	if newerGo {
		// The module asks for a newer Go than the local toolchain (and
		// GOTOOLCHAIN=local forbids switching), so the go command verified
		// and cached the zip but did not extract it. Extract it and lower
		// the go line to the local version: the analysis then type-checks
		// with the local toolchain, and reports a load error if the code
		// really needs the newer one.
		if err := extractModuleZip(info.Zip, mod, dst); err != nil {
			return "", err
		}
		local, err := localGoVersion(ctx, timeout, workdir)
		if err != nil {
			return "", err
		}
		if _, err := mustRun(ctx, timeout, dst, "go", "mod", "edit", "-go="+local, "-toolchain=none"); err != nil {
			return "", err
		}
		logf("%s: %s; lowered its go line to %s", mod, info.Error, local)
	} else if err := copyTree(info.Dir, dst); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(dst, "go.mod")); errors.Is(err, fs.ErrNotExist) {
		path := mod[:strings.LastIndex(mod, "@")]
		if _, err := mustRun(ctx, timeout, dst, "go", "mod", "init", path); err != nil {
			return "", err
		}
		// -e: old modules import benchmarks' and web UIs' dependencies that the
		// proxy no longer serves; the packages under analysis usually do not
		// need them, and if they do, the analysis reports the load error.
		res, err := mustRun(ctx, timeout, dst, "go", "mod", "tidy", "-e")
		if err != nil {
			return "", err
		}
		logf("%s had no go.mod: ran go mod init + go mod tidy -e%s", mod, tidyWarnings(res.Stderr))
	}
	if err := dropMissingReplaces(ctx, dst, timeout, logf); err != nil {
		return "", err
	}
	res, err = mustRun(ctx, timeout, dst, "go", "mod", "download")
	if err != nil {
		// A dependency the proxy refuses (403: cert-manager's Venafi/vcert)
		// only breaks the packages that import it; the analysis reports
		// those as load errors, so the copy is still usable.
		logf("WARNING %s: %v", mod, err)
	} else {
		logf("downloaded the dependencies of %s in %s", mod, res.Elapsed.Round(time.Millisecond))
	}
	if err := os.WriteFile(filepath.Join(dst, readyMarker), nil, 0o644); err != nil {
		return "", err
	}
	return dst, nil
}

// localGoVersion is the local toolchain's version without "go" (1.26.8).
func localGoVersion(ctx context.Context, timeout time.Duration, dir string) (string, error) {
	res, err := mustRun(ctx, timeout, dir, "go", "env", "GOVERSION")
	if err != nil {
		return "", err
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(res.Stdout)), "go")
	if v, _, _ = strings.Cut(v, " "); v == "" {
		return "", errors.New("go env GOVERSION printed nothing")
	}
	return v, nil
}

// extractModuleZip extracts a module zip from the module cache into dst;
// every file in it lies below the prefix module@version/.
func extractModuleZip(zipFile, mod, dst string) error {
	zr, err := zip.OpenReader(zipFile)
	if err != nil {
		return err
	}
	defer zr.Close()
	prefix := mod + "/"
	for _, f := range zr.File {
		rel, ok := strings.CutPrefix(f.Name, prefix)
		if !ok || rel == "" || strings.HasSuffix(f.Name, "/") {
			continue
		}
		if !filepath.IsLocal(rel) {
			return fmt.Errorf("%s: unsafe path %q", zipFile, f.Name)
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		in, err := f.Open()
		if err != nil {
			return err
		}
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err == nil {
			_, err = io.Copy(out, in)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		in.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// tidyWarnings summarizes the imports go mod tidy -e could not resolve.
func tidyWarnings(stderr string) string {
	n := strings.Count(stderr, " imports\n")
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(" (%d unresolved imports; last: %s)", n, tail(stderr, 300))
}

// dropMissingReplaces removes replace directives that point at a local
// folder the module zip does not contain (kratos replaces ory/client-go with
// ./internal/client-go, which is not in its zip): with them every go command
// in the copy fails, without them the required version is used.
func dropMissingReplaces(ctx context.Context, dir string, timeout time.Duration, logf func(string, ...any)) error {
	res, err := mustRun(ctx, timeout, dir, "go", "mod", "edit", "-json")
	if err != nil {
		return err
	}
	var mf struct {
		Replace []struct {
			Old, New struct{ Path, Version string }
		}
	}
	if err := json.Unmarshal(res.Stdout, &mf); err != nil {
		return fmt.Errorf("go mod edit -json in %s: %w", dir, err)
	}
	for _, r := range mf.Replace {
		local := strings.HasPrefix(r.New.Path, "./") || strings.HasPrefix(r.New.Path, "../") || filepath.IsAbs(r.New.Path)
		if !local || r.New.Version != "" {
			continue
		}
		target := r.New.Path
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		if _, err := os.Stat(filepath.Join(target, "go.mod")); err == nil {
			continue
		}
		old := r.Old.Path
		if r.Old.Version != "" {
			old += "@" + r.Old.Version
		}
		if _, err := mustRun(ctx, timeout, dir, "go", "mod", "edit", "-dropreplace="+old); err != nil {
			return err
		}
		logf("dropped replace %s => %s (not in the module zip)", old, r.New.Path)
	}
	return nil
}

// copyTree copies a module cache folder, making every file and folder
// writable by the owner (the cache is read-only).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(target, info.Mode().Perm()|0o700)
		case info.Mode().IsRegular():
			return copyFile(p, target, info.Mode().Perm()|0o600)
		default:
			return nil // module zips hold only regular files; skip anything else
		}
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// buildTool builds cmd/gatesift-vet from the repository once per run.
func buildTool(ctx context.Context, repo, workdir string, timeout time.Duration) (string, error) {
	bin := filepath.Join(workdir, "bin", "gatesift-vet")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/gatesift-vet")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "GOWORK=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building ./cmd/gatesift-vet: %v\n%s", err, out)
	}
	return bin, nil
}

// analysis is one run of the tool on the packages of one module version.
type analysis struct {
	Findings       []Finding
	AnalyzerErrors []AnalyzerError
	Stderr         string
	Elapsed        time.Duration
	Err            string // non-empty when the run failed
}

// analyze runs `gatesift-vet -json [-profile strict] pkgs...` inside dir.
// Per the tool's contract, -json exits 0 unless the tool itself failed, so a
// non-zero exit or output that is not a JSON tree is an error.
func analyze(ctx context.Context, tool, dir string, pkgs []string, strict bool, timeout time.Duration) analysis {
	return analyzeEnv(ctx, tool, dir, pkgs, strict, timeout, nil)
}

// analyzeEnv is analyze with extra environment variables.
func analyzeEnv(ctx context.Context, tool, dir string, pkgs []string, strict bool, timeout time.Duration, env []string) analysis {
	args := []string{"-json"}
	if strict {
		args = append(args, "-profile", "strict")
	}
	args = append(args, pkgs...)
	res, err := runEnv(ctx, timeout, dir, env, tool, args...)
	a := analysis{Stderr: res.Stderr, Elapsed: res.Elapsed}
	if err != nil {
		a.Err = err.Error()
		return a
	}
	fs, aerrs, perr := parseVetJSON(res.Stdout, dir)
	a.Findings, a.AnalyzerErrors = fs, aerrs
	switch {
	case res.ExitCode != 0:
		a.Err = fmt.Sprintf("%s exited %d: %s", filepath.Base(tool), res.ExitCode, tail(res.Stderr, 2000))
	case perr != nil:
		a.Err = fmt.Sprintf("%v (stdout starts %.200q)", perr, res.Stdout)
	}
	return a
}

// tail keeps the last n bytes of s, where error messages usually are.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
