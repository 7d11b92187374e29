package recursive2

func countup(depth int) int { return countdown(depth) }
