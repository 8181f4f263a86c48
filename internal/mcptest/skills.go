package mcptest

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// The Skills extension (io.modelcontextprotocol/skills, SEP-2640,
// seps/2640-skills-extension.md of modelcontextprotocol/modelcontextprotocol):
// with Options.Skills the fixture declares it under capabilities.extensions
// (with directoryRead), serves one skill as skill:// resources — its
// SKILL.md and one supporting file — and answers skills/list, skills/get
// and resources/directory/read. The skill files are not listed by
// resources/list ("Directory resources need not appear in resources/list";
// a skill is found through skills/list).
const (
	skillsExtension = "io.modelcontextprotocol/skills"
	skillRoot       = "skill://forecast-guide"
	skillMDURI      = skillRoot + "/SKILL.md"
	skillRefsDir    = skillRoot + "/references"
	skillRegionsURI = skillRefsDir + "/regions.md"
	directoryMIME   = "inode/directory"

	skillMD = `---
name: forecast-guide
description: Read the fixture's forecasts and explain them region by region.
license: Apache-2.0
metadata:
  version: "1.0"
---
# Forecast guide

Call get_forecast for each region the user names; references/regions.md lists
the regions the server knows.
`
	skillRegions = "# Regions\n\nSpringfield, Shelbyville.\n"
)

// skillFiles maps each skill file's URI to its content.
var skillFiles = map[string]string{skillMDURI: skillMD, skillRegionsURI: skillRegions}

// skillsOn reports whether the fixture serves the extension.
func (s *Server) skillsOn() bool { return s.opts.Skills && !s.opts.Legacy }

// skillDigest is the SEP's digest of content: "sha256:" and 64 lowercase
// hex digits of its raw bytes.
func skillDigest(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// skillEntry returns a fresh copy of the skill's entry, as skills/list and
// skills/get answer it: its frontmatter as JSON, every file with its
// digest and size.
func skillEntry() map[string]any {
	resource := func(uri string) map[string]any {
		return map[string]any{"uri": uri, "digest": skillDigest(skillFiles[uri]), "size": len(skillFiles[uri])}
	}
	return map[string]any{
		"uri": skillMDURI,
		"frontmatter": map[string]any{
			"name":        "forecast-guide",
			"description": "Read the fixture's forecasts and explain them region by region.",
			"license":     "Apache-2.0",
			"metadata":    map[string]any{"version": "1.0"},
		},
		"resources": []any{resource(skillMDURI), resource(skillRegionsURI)},
	}
}

// skillDirectory returns the direct children of a directory resource of
// the skill, nil when uri is none.
func skillDirectory(uri string) []any {
	file := func(uri, name string) map[string]any {
		return map[string]any{"uri": uri, "name": name, "mimeType": "text/markdown"}
	}
	switch uri {
	case skillRoot:
		return []any{file(skillMDURI, "SKILL.md"), map[string]any{"uri": skillRefsDir, "name": "references", "mimeType": directoryMIME}}
	case skillRefsDir:
		return []any{file(skillRegionsURI, "regions.md")}
	}
	return nil
}

// skillMethod answers skills/list, skills/get and resources/directory/read.
func (s *Server) skillMethod(c *call) outcome {
	switch c.msg.method {
	case "skills/list":
		// One page: the fixture issues no cursor, so any is invalid.
		if _, present, ok := paramString(c.params, "cursor"); !ok || present {
			return invalidParams("invalid cursor", nil)
		}
		// In 2026-07-28 a skills/list result carries the list-caching
		// attributes of SEP-2549.
		return outcome{result: map[string]any{"skills": []any{skillEntry()}, "ttlMs": cacheTTLMs, "cacheScope": cacheScope}}
	case "skills/get":
		uri, present, ok := paramString(c.params, "uri")
		if !ok || !present {
			return invalidParams("uri is required and must be a string", nil)
		}
		if uri != skillMDURI {
			// "If the URI does not identify a skill the server serves, the
			// server MUST return error -32602 (Invalid params)".
			return invalidParams("no skill is served at "+uri, map[string]any{"uri": uri})
		}
		return outcome{result: map[string]any{"skill": skillEntry()}}
	default: // resources/directory/read
		uri, present, ok := paramString(c.params, "uri")
		if !ok || !present {
			return invalidParams("uri is required and must be a string", nil)
		}
		if _, present, ok := paramString(c.params, "cursor"); !ok || present {
			return invalidParams("invalid cursor", nil)
		}
		children := skillDirectory(strings.TrimSuffix(uri, "/"))
		if children == nil {
			return invalidParams(uri+" is not a directory resource", map[string]any{"uri": uri})
		}
		return outcome{result: map[string]any{"resources": children}}
	}
}

// skillFile returns the resources/read result of a skill file, nil when
// uri is none.
func skillFile(uri string) map[string]any {
	text, ok := skillFiles[uri]
	if !ok {
		return nil
	}
	return map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/markdown", "text": text}}}
}
