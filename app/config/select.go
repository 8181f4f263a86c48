package config

// Given says the option was set on the command line (an Action input is
// one) or in the config file: a default the caller may replace, such as
// the Action's --select affected on pull_request, must not replace it.
func (c *Config) Given(name string) bool {
	return c.flagsSet[name] || len(c.fileLines[name]) > 0
}
