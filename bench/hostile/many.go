package main

// many-tools: a tools/list whose one page holds -tools small, correct
// tools (100 000 by default, about 8 MB: under the 16 MiB default limit),
// for the peak memory of judging one huge page (bench/hostile.sh
// http:many-tools); the other lists are empty.

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

// manyHTTP answers many-tools' requests; it reports false for another mode.
func manyHTTP(mode string, w http.ResponseWriter, id json.RawMessage, method string) bool {
	if mode != "many-tools" {
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
