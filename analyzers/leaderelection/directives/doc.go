// Package directives defines the LE9001 analyzer: a //gatesift: directive
// that is malformed, has no reason, or matched nothing.
//
// A suppression without a reason cannot be reviewed, and one that no longer
// suppresses anything outlives the code it was written for and would hide
// the next real finding on that line. The analyzer requires every other rule
// so that it runs after them on each package; a directive naming a rule that
// is disabled, or that did not run, is never called unused.
package directives
