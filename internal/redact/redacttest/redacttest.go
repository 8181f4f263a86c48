// Package redacttest gives the tests of the redactor and of the program's
// outputs one list of the spellings a secret may take. It imports nothing
// of this module.
package redacttest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"net/url"
	"strings"
)

// Spellings writes v in every form a server or an encoder may give it,
// computed here with the standard library's encoders rather than by the
// redactor under test. The keys name the spellings.
func Spellings(v string) map[string]string {
	jsonHTML, _ := json.Marshal(v)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	jh := string(jsonHTML[1 : len(jsonHTML)-1])
	jp := strings.TrimSpace(plain.String())
	jp = jp[1 : len(jp)-1]
	var x bytes.Buffer
	_ = xml.EscapeText(&x, []byte(v))
	var every strings.Builder // a JSON encoder may escape any character
	for _, c := range v {
		fmt.Fprintf(&every, `\u%04X`, c)
	}
	return map[string]string{
		"json every character escaped": every.String(),
		"raw":                          v,
		"json":                         jh,
		"json no html":                 jp,
		"json slash":                   strings.ReplaceAll(jh, "/", `\/`),
		"json no html slash":           strings.ReplaceAll(jp, "/", `\/`),
		"query":                        url.QueryEscape(v),
		"path":                         url.PathEscape(v),
		"base64":                       base64.StdEncoding.EncodeToString([]byte(v)),
		"base64 url":                   base64.URLEncoding.EncodeToString([]byte(v)),
		"base64 raw":                   base64.RawStdEncoding.EncodeToString([]byte(v)),
		"base64 raw url":               base64.RawURLEncoding.EncodeToString([]byte(v)),
		"html":                         html.EscapeString(v),
		"xml":                          x.String(),
	}
}
