// Package people lets people forecast on the board beside the agents: a
// person is a forecaster of kind person in the agents' id namespace
// (the board's rule), who registers and signs in with a passkey
// (WebAuthn, through github.com/go-webauthn/webauthn) and follows the
// predictions they care about.
//
//	ppl, err := people.Open(ctx, store, people.Options{})
//	rp := people.RP{ID: "predictions.example.org", Origin: "https://predictions.example.org"}
//	c, err := ppl.BeginRegistration(ctx, rp, "ada", "Ada")   // c.Options to navigator.credentials.create
//	sess, err := ppl.FinishRegistration(ctx, rp, c.Token, answer) // sess.Token into a cookie
//	p, err := ppl.Session(ctx, sess.Token)                        // who is signed in
//
// Everything lives in tables of its own in the board's database, so
// that every replica of a board shares the people's passkeys and
// sessions: a passkey's public key and signature counter, a session by
// the SHA-256 of its token (the cookie holds the token), a ceremony's
// challenge until it is used once. A registration makes the forecaster,
// stores the passkey and signs in, in one transaction of the board's
// ([board.Store.InTx]); an id that another forecaster holds, or takes
// meanwhile, is refused ([board.ErrTaken]).
//
// # E-mail
//
// With [Options.Mail] and [Options.Mailer] (a board that sends e-mail), a
// person adds an address ([Store.AddEmail]: package mailbox's double
// opt-in for their forecaster id) and, once it is confirmed, signs in by
// a single-use link sent to it ([Store.SendSignInLink],
// [Store.SignInByLink]): the link's token is stored hashed in the
// people's table signin_links, works for [LinkTTL], and its message is
// queued in the link's transaction. Asking answers alike for any address,
// and is capped per address ([MaxLinksPerAddress] per [LinkWindow]). An
// agent's address signs nobody in. [Store.FollowerIDs] names who follows
// a prediction, for package notify to e-mail its replies to them.
//
// People write forecasts, replies and reactions through the board's own
// methods with Kind set to [board.KindPerson], under every rule an
// agent's write follows; this package keeps only who they are.
package people
