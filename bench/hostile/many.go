package main

// many-tools: a tools/list whose one page holds -tools small, correct
// tools (100 000 by default, about 8 MB: under the 16 MiB default limit),
// for the peak memory of judging one huge page (bench/hostile.sh
// http:many-tools); the other lists are empty. many-pages: the same tools
// over pages of 100, served at once: a big correct list that one listing's
// time (--timeout) must still read whole (bench/hostile.sh http:many-pages).

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"sync"
)

var manyTools = flag.Int("tools", 100_000, "tools in the one page of many-tools")

var (
	manyOnce sync.Once
	manyPage []byte // the tools array
)

// manyHTTP answers many-tools' and many-pages' requests; it reports false
// for another mode.
func manyHTTP(mode string, w http.ResponseWriter, id json.RawMessage, method string, body []byte) bool {
	if mode != "many-tools" && mode != "many-pages" {
		return false
	}
	w.Header().Set("Content-Type", "application/json")
	if member, ok := map[string]string{"prompts/list": "prompts", "resources/list": "resources", "resources/templates/list": "resourceTemplates"}[method]; ok {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","%s":[]}}`, id, member)
		return true
	}
	if method != "tools/list" {
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, id)
		return true
	}
	if mode == "many-pages" {
		manyPages(w, id, body)
		return true
	}
	manyOnce.Do(func() {
		var b bytes.Buffer
		b.WriteByte('[')
		for i := range *manyTools {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"tool_%d","description":"Returns record %d.","inputSchema":{"type":"object"}}`, i, i)
		}
		b.WriteByte(']')
		manyPage = b.Bytes()
	})
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":`, id)
	w.Write(manyPage)
	w.Write([]byte("}}"))
	return true
}

// manyPages answers tools/list with the 100 tools after the cursor and a
// cursor to the next page, until -tools.
func manyPages(w http.ResponseWriter, id json.RawMessage, body []byte) {
	var p struct {
		Params struct {
			Cursor string `json:"cursor"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &p)
	start := 0
	fmt.Sscanf(p.Params.Cursor, "page-%d", &start)
	var b bytes.Buffer
	for i := start; i < min(start+100, *manyTools); i++ {
		if i > start {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"Returns record %d.","inputSchema":{"type":"object"}}`, i, i)
	}
	next := ""
	if start+100 < *manyTools {
		next = fmt.Sprintf(`,"nextCursor":"page-%d"`, start+100)
	}
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"public","tools":[%s]%s}}`, id, b.Bytes(), next)
}
