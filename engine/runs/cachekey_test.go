package runs

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-eval/mcp-eval/llm"
)

// TestCacheKeyCoversEveryRequestField walks llm.Request by reflection:
// for every leaf field (through slices, pointers and nested structs) a
// request that differs from a fully populated one in that field alone must
// get another key. A field added to llm.Request, Message, ToolCall, Tool or
// Format that the key forgot (a json:"-" tag, an unexported field a
// provider sends) fails here, naming it.
func TestCacheKeyCoversEveryRequestField(t *testing.T) {
	t.Parallel()
	c := NewCache(t.TempDir())
	const endpoint = "https://api.example/v1/chat/completions"
	paths := leafPaths(reflect.TypeFor[llm.Request](), nil)
	if len(paths) < 15 {
		t.Fatalf("only %d leaf fields found in llm.Request: the walk is broken", len(paths))
	}
	var base llm.Request
	fillValue(reflect.ValueOf(&base).Elem(), nil, nil)
	key := c.Key(endpoint, 0, base)
	for _, p := range paths {
		var r llm.Request
		fillValue(reflect.ValueOf(&r).Elem(), nil, p)
		if reflect.DeepEqual(r, base) {
			t.Fatalf("%s: the variant equals the base", pathName(p))
		}
		if c.Key(endpoint, 0, r) == key {
			t.Errorf("llm.Request.%s is not in the cache key: two requests that differ in it share an entry", pathName(p))
		}
	}
}

// leafPaths are the leaf fields below t as struct field indexes.
func leafPaths(t reflect.Type, prefix []int) [][]int {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return [][]int{append([]int(nil), prefix...)}
	}
	var out [][]int
	for i := range t.NumField() {
		out = append(out, leafPaths(t.Field(i).Type, append(append([]int(nil), prefix...), i))...)
	}
	return out
}

func pathName(p []int) string {
	t := reflect.TypeFor[llm.Request]()
	var names []string
	for _, i := range p {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		names = append(names, t.Field(i).Name)
		t = t.Field(i).Type
	}
	return strings.Join(names, ".")
}

// fillValue sets every leaf of v to its base value, and the leaf at
// variant (a path from v, nil for none) to another value. Unexported
// fields are set too, through their exported parents, so that one the key
// cannot see is caught.
func fillValue(v reflect.Value, at []int, variant []int) {
	hit := variant != nil && len(variant) == len(at) && fmt.Sprint(variant) == fmt.Sprint(at)
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillValue(v.Elem(), at, variant)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // json.RawMessage
			s := `{"a":1}`
			if hit {
				s = `{"a":2}`
			}
			v.SetBytes([]byte(s))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fillValue(v.Index(0), at, variant)
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				t := v.Type().Field(i)
				panic(fmt.Sprintf("llm.Request has an unexported field %s: the cache key cannot see it", t.Name))
			}
			fillValue(f, append(append([]int(nil), at...), i), variant)
		}
	case reflect.String:
		s := "s0"
		if hit {
			s = "s1"
		}
		v.SetString(s)
	case reflect.Int, reflect.Int64, reflect.Int32:
		n := int64(7)
		if hit {
			n = 8
		}
		v.SetInt(n)
	case reflect.Float64:
		f := 0.5
		if hit {
			f = 0.25
		}
		v.SetFloat(f)
	case reflect.Bool:
		v.SetBool(hit)
	default:
		panic(fmt.Sprintf("fillValue: %s at %v: teach the walk this kind", v.Type(), at))
	}
}
