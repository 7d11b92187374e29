// Package naming joins names.
package naming

// Grouped is the service's name within its group.
func Grouped(service, group string) string { return group + "@@" + service }
