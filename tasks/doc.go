// Package tasks is the golden file's model, shared by Layer 1 (golden,
// which scores the runs of its cases) and Layer 2 (resilience, which runs
// the same cases with the faults and injections of their faults: and
// inject: keys). It is not a layer and imports none.
//
//   - [Load] or [Parse] read the file and report every mistake as a
//     yamlfile.Error
//     naming FILE:LINE, with a did-you-mean for a misspelt key;
//     [Suite.Validate] then checks the cases against the server's
//     tools/list and fills in the argument matchers each property's schema
//     calls for.
//   - [ArgCheck.Match] and [AnswerCheck.Check] say what an expectation
//     means for one value; scoring whole runs is golden's.
//   - [Fault] and [Inject] are the faults: and inject: keys' types.
//   - [Case.Task] is the agent.Task of one run of a case.
package tasks
