// Command gatesift-vet finds missing or broken Leader Election in Go
// services: periodic work with a shared effect that runs on every replica,
// singleton work enabled by a static designation, competing schedulers, and
// locks or leases without expiry, ownership checks, fencing or renewal.
// Run gatesift-vet -list for the rules and gatesift-vet -explain LE1001 for
// one rule's documentation.
//
// # Running it
//
// Standalone, inside a module, with any go list patterns (default "."):
//
//	$ gatesift-vet ./...
//	billing/charge.go:10:12: time.Tick runs loop body on every replica every 1m0s: it inserts
//	  into table charges; guarded by nothing, so N replicas do it N times; run it under a lease
//	  (elector.Run, client-go leaderelection) or claim the work (SKIP LOCKED, compare-and-set) (LE1001)
//	billing/charge.go:11:3: 	effect: inserts into table charges via database/sql.(DB).ExecContext
//
// (each finding is one line; wrapped here).
//
// Each finding is one line, file:line:col: message (ID), with paths relative
// to the working directory and findings sorted by position; its related
// information (the shared-state effects, the local guard) follows on
// tab-indented lines, as go vet prints it. Results go to standard output;
// errors, and progress when standard error is a terminal, go to standard
// error. Test packages are loaded too, as go vet does (-test=false skips
// them); the rules themselves skip _test.go and generated files unless the
// configuration opts in.
//
// A package that does not load or type-check (a _test.go with a type error
// loses its test package) is reported on standard error as soon as it is
// found; the packages importing it are named and skipped, and every other
// package is analyzed and reported as usual; the exit code is then 1. The
// -json and SARIF outputs carry the same packages, with each error's
// position and message (see JSON and SARIF below), so a gate that reads the
// file rather than the log still sees that part of the code went unchecked;
// a baseline never hides them. The
// standalone driver holds one package's syntax at a time (per CPU), plus the
// types and facts of the packages already analyzed, so its memory grows with
// the largest package rather than the program. It sets a soft memory limit
// (runtime/debug.SetMemoryLimit) of nine tenths of the memory it may use,
// the smaller of the memory available when it starts and its cgroup's
// limit, so that the garbage collector works harder near that line rather
// than the process being killed; a GOMEMLIMIT in the environment is left
// as the user set it. It also sets the collector's target to 70 percent
// (GOGC=70) unless GOGC is set: a lower peak for a few percent of time.
//
// Under go vet, which caches results and runs one process per package:
//
//	go vet -vettool=$(which gatesift-vet) ./...
//	go vet -vettool=$(which gatesift-vet) -checks=LE1*,-LE3003 ./...
//
// Both give the same findings at the same positions with the same messages
// (go vet prints them without the trailing rule ID, and exits 1 on findings
// as go vet always does). Facts about functions (their effects, what they
// schedule) flow between packages in both modes. go vet accepts the flags
// -checks, -profile, -config and -config-digest, plus -json, -c and one
// boolean flag per analyzer (-localsingleton=false) from the go vet protocol.
//
// # Flags
//
//	-checks LIST          the rules to run, after the config file, as
//	                      staticcheck reads it: LE3* runs only LE3xxx;
//	                      default,LE3003 adds LE3003 to the defaults;
//	                      -LE1002 removes LE1002 from them; IDs or analyzer
//	                      names, * globs, all, none
//	-profile P            default, or strict (also reports idempotent-only
//	                      work: upserts, deletes of expired rows)
//	-config FILE          use FILE instead of discovering .gatesift.yaml
//	                      (must be absolute under go vet, which runs the tool
//	                      in each package's directory)
//	-config-digest D      fail (exit 1) unless the configuration digest is D
//	-print-config-digest  print the current digest and exit
//	-json                 the go vet JSON tree (same as -format=json)
//	-format F             text (default), json or sarif
//	-o FILE               write the results to FILE instead of stdout
//	-report F             instead of findings, an inventory of every job, lock
//	                      and leader election (site, schedule or TTL, writes,
//	                      guard or coordinator, verdict), grouped by binary:
//	                      markdown, json or html; exit 0 unless the tool failed
//	-report-source-url T  with -report=html, link each site to T with {file}
//	                      (relative to the module root), {abs} and {line};
//	                      default file://{abs}#L{line}
//	-baseline FILE        report only findings not recorded in FILE
//	-write-baseline FILE  record every current finding in FILE, exit 0
//	-fail-on-findings     exit 3 on findings with -json and SARIF too
//	-list                 the rule registry (with -json: as JSON)
//	-explain RULE         a rule's documentation (unknown rule: exit 1)
//	-c N                  text: show each position's line plus N lines of context
//	-tags LIST            build tags for loading packages, as go build -tags
//	-test                 load test packages too (default true)
//	-cpuprofile FILE      write a CPU profile of the run
//	-V, -version          the version: the module version when installed with
//	                      go install ...@version; for a build in a git
//	                      checkout the pseudo-version Go stamps, named as a
//	                      development build of its commit; v0.1.0 for a
//	                      build without VCS information; -V=full is the go
//	                      vet protocol
//
// # Exit codes
//
//	0  no findings; with -json or -format=sarif, success whatever was found
//	1  tool error: bad flags, a malformed .gatesift.yaml, packages that do
//	   not load or type-check, a missing or corrupt baseline, a rule error,
//	   or -config-digest not matching
//	3  findings (text output; with -json or SARIF only under
//	   -fail-on-findings), as singlechecker tools do
//
// A rule that panics does not stop the run: it becomes an "internal error"
// finding for that package, with the first frames of the stack, and the
// other rules' findings are still reported.
//
// # Configuration and the go vet cache
//
// Each package uses the nearest .gatesift.yaml from its directory up to its
// module root (see package config for the keys). A malformed file is
// reported with every problem in it, each with its file and line (unknown
// key "profil" at .gatesift.yaml:3; did you mean "profile"?), and the run
// exits 1; standalone it is reported once, under go vet once per package
// that uses it.
//
// go vet caches results keyed on the tool's identity (its answer to
// -V=full) and its flags, not on files the tool reads by itself. So
// gatesift-vet's -V=full answer is "gatesift-vet version v0.1.0
// buildID=<hash>", where the hash covers the executable and the digest of
// every .gatesift.yaml in the module go vet runs in. For a version without
// "devel" go vet keys on the whole line, hash included, so editing any of
// them changes the key and go vet re-runs the analysis. -V=full answers even
// when a config is malformed (the digest covers its bytes), so that go vet
// does not abort with its own errors; each package's run reports it.
//
// A -config file outside the module is not covered by that digest. Pin it
// in the command line instead, which go vet also keys on:
//
//	go vet -vettool=$(which gatesift-vet) -config=$PWD/ci.gatesift.yaml \
//	    -config-digest=$(gatesift-vet -config ci.gatesift.yaml -print-config-digest) ./...
//
// -config-digest also lets a script pin the configuration it reviewed: the
// run fails with exit 1 if any config file changed since.
//
// # JSON
//
// -json prints exactly go vet's JSON tree:
//
//	{ "<package ID>": { "<analyzer>": [ { "posn": "file:line:col", "end": "file:line:col",
//	    "category": "LE1001", "message": "...", "related": [...], "suggested_fixes": [...] } ] } }
//
// or { "error": "..." } in place of the list for an analyzer that failed.
// A finding in a file shared by a package and its test variant is listed
// once, under the package.
//
// A package that was not analyzed has one more entry, under the key "load"
// (no analyzer has that name), in the same { "error": "..." } shape, so a
// tool that reads go vet's tree sees a failure; two more fields say why:
//
//	"example.com/x/typeerr": { "load": {
//	    "error": "package does not load; it and the packages importing it are not analyzed: /abs/typeerr/t.go:3:23: cannot use ...",
//	    "errors": [ { "posn": "/abs/typeerr/t.go:3:23", "message": "cannot use ..." } ] } },
//	"example.com/x/app": { "load": {
//	    "error": "not analyzed because an import does not load: example.com/x/typeerr",
//	    "broken_imports": [ "example.com/x/typeerr" ] } }
//
// errors lists a package's own go list, parse and type errors, each with
// its posn (file:line:col, absolute as in diagnostics; file:line or file
// when that is all go list knows; absent when unknown) and message;
// broken_imports lists, for a package that loads but imports one that does
// not (or that was skipped itself), those imports. An unresolvable import
// is go list's error on the missing package's ID, at the import in the
// importing file; the importing package then has broken_imports. A broken
// _test.go gives errors to the test variant ("p [p.test]") and
// broken_imports to the test main ("p.test"); p itself is analyzed.
//
// # SARIF
//
// -format=sarif (usually with -o results.sarif) writes SARIF 2.1.0: the
// rules catalogue (ID, name, title, help, documentation URL, enabled by
// default, level, precision, since), and one result per finding with its
// location (URI relative to the module root under uriBaseId SRCROOT, UTF-16
// columns), related locations, the enclosing function, and
// partialFingerprints["gatesift/v1"]. Findings silenced by a
// //gatesift:ignore or file-ignore directive are included with
// suppressions: [{kind: inSource, justification: <the directive's reason>}],
// so code-scanning services show them as suppressed. A rule's level is
// warning (note for a rule off by default) unless the config's severity map
// says error, warning or note.
//
// The run's one invocation has executionSuccessful false when a package was
// not analyzed or an analyzer failed, and its toolExecutionNotifications say
// why, each with level error: for each error of a package that does not
// load or type-check, the message "package P does not load; it and the
// packages importing it are not analyzed: file:line:col: error", a location
// at the error (SRCROOT-relative URI, line and column) when it has one,
// descriptor load-error and properties.package P; for each package skipped
// because an import does not load, descriptor not-analyzed with the imports
// in the message. Both descriptors are described in
// tool.driver.notifications. An analyzer's error and a rule's internal
// error are notifications too, without a descriptor.
//
// # Inventory reports
//
// -report=markdown|json|html prints, instead of findings, every scheduled
// or background job, distributed lock and leader election of the analyzed
// packages, grouped by binary (each package main; code no binary imports is
// listed as library), each with its verdict: coordinated, per-replica, or a
// finding with the rules that report it. -report=html is one self-contained
// page (inline CSS and script) that filters by verdict, also from the URL:
// report.html#verdict=finding. docs/report.md describes the formats and
// the JSON shape.
//
// # Baselines
//
// To adopt the gate on a large codebase, record today's findings and fail
// only on new ones:
//
//	gatesift-vet -write-baseline .gatesift-baseline.json ./...
//	gatesift-vet -baseline .gatesift-baseline.json ./...
//
// A baseline is versioned, sorted JSON listing each finding's fingerprint
// with its rule, file, function and message for review. The fingerprint
// hashes the rule, the file (relative to the module root), the enclosing
// function, the message with numbers blanked, and the text of the flagged
// line with spaces collapsed, plus an occurrence index for identical
// findings; it contains no line number, so editing code above a finding
// keeps it baselined, while changing the flagged line itself, renaming its
// function or moving it to another file makes it new. A missing or corrupt
// baseline file is an error (exit 1) naming the file. A baseline holds
// findings only: packages that do not load are reported (stderr, JSON,
// SARIF, exit 1) whatever it says, and -write-baseline refuses to record a
// run in which some did not (exit 1, no file written).
//
// # Directives
//
//	//gatesift:ignore LE1001 -- reason         (this line or the line below it)
//	//gatesift:file-ignore LE3003 -- reason    (the whole file)
//	//gatesift:per-replica -- reason           (work meant to run on every replica)
//	//gatesift:leader-only                     (a function only called while leading)
//
// The reason is required; LE9001 reports malformed directives and ones that
// suppress nothing.
package main
