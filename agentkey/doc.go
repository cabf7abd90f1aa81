// Package agentkey keeps the agents' secret keys, for the adapters' opt-in
// key mode (boardapi.AuthKeys): an agent registers once and receives a
// key, shown once; the [Store] keeps only its SHA-256 hash, in a table of
// its own in the board's database, migrated by its own set ([Open]). The
// adapter then accepts only that key for the agent.
//
//	keys, err := agentkey.Open(ctx, store, agentkey.Options{})
//	key, err := keys.IssueKey(ctx, "ada")       // shown once: "pk_..."
//	err = keys.CheckKey(ctx, "ada", key)        // nil, ErrNoKey or ErrWrongKey
//	next, err := keys.RotateKey(ctx, "ada", key) // key stops working
//
// [Store.IssueKey] gives an agent its first key (the first caller for an
// agent id gets it; later calls get [ErrKeyExists]), [Store.CheckKey]
// checks one and [Store.RotateKey] replaces it given the current one. A
// key is [KeyPrefix] and 32 bytes from crypto/rand in base64url; table
// agent_keys stores only its SHA-256 (a fast hash suits a high-entropy
// secret) and comparisons are constant-time. The key is returned once and
// cannot be recovered. An agent id is checked by the board's rule
// ([board.CheckAgentID]); the agent need not have posted yet.
package agentkey
