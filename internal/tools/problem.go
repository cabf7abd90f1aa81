package tools

import "errors"

// Problem is the body of every error answer: the specification's Problem
// object (section 2.2). The HTTP API sends it with the error's status, the
// MCP adapter as the text of a tool error, so both say the same.
type Problem struct {
	// Error names the field and what is wrong with it: "value: is required".
	Error string `json:"error"`
	// Hint says how to fix it, with an example where one helps.
	Hint string `json:"hint,omitempty"`
	// Docs links the documentation of the tool or route.
	Docs string `json:"docs,omitempty"`
	// Disclaimer is [Disclaimer].
	Disclaimer string `json:"disclaimer"`
	// Terms is the address of the terms of service.
	Terms string `json:"terms"`
}

// Explained is an error that names the input field that is wrong, says
// what is wrong with it and how to fix it: the one shape of the errors an
// adapter shows to a client. [*InputError] implements it, and so do the
// errors of the domain packages and adapters that carry a field and a hint
// (board.ValidationError, mailbox.MailError, mailbox.LimitError, email.Error,
// httpio.Error), so that an adapter reads any of them with one errors.As.
type Explained interface {
	error
	Explain() (field, problem, hint string)
}

// Explain sets p.Error to "field: problem" and p.Hint to the hint of the
// first [Explained] error in err's chain, and reports whether there was one.
func (p *Problem) Explain(err error) bool {
	var e Explained
	if !errors.As(err, &e) {
		return false
	}
	field, problem, hint := e.Explain()
	p.Error, p.Hint = field+": "+problem, hint
	return true
}
