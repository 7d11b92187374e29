package recursive

func countup(depth int) int { return countdown(depth) }
