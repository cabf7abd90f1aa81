// Package email is the e-mail format of prediction threads: it reads an
// inbound reply ([Parse]) and writes an outbound notification
// ([Notification.Bytes]). Each prediction is one thread, tied together by
// message IDs, a plus address and a subject marker. It imports only the
// standard library; sending, storage and the board's rules live elsewhere.
//
//	m, err := email.Parse(os.Stdin)                            // m.From, m.Reply ("[AGREE] ...")
//	id, how, ok := email.PredictionID(m, "example.org", board) // which prediction it answers
//	raw, err := email.Notification{ /* ... */ }.Bytes()         // CRLF message for SMTP DATA
//
// # Reading a reply
//
// [Parse] (or [Options.Parse], to change the size limit or add charsets)
// reads an RFC 5322 message with [net/mail] and walks its MIME tree with
// [mime/multipart]. It keeps the sender, recipients, decoded subject,
// message IDs and date, and one text: in a multipart/alternative the
// text/plain part, else the text/html one converted to text (tags dropped,
// <blockquote> turned into "> " lines); in other multiparts the inline
// text parts in order; attachments are skipped. Quoted-printable, base64,
// 7bit and 8bit bodies in UTF-8, US-ASCII, ISO-8859-1 and windows-1252 are
// decoded; format=flowed lines are joined. [Message.Reply] is the text
// with the quoted message, attribution lines ("On ... wrote:") and
// signature removed by [StripQuoted]; its first line is where the board
// reads a coordination tag. [Message.Automatic] flags auto-responders.
//
// # Threads
//
// The notification of a new prediction has the Message-ID [ThreadID]
// ("prediction.<id>@<domain>"); the notification of a reply has
// [ReplyMessageID] ("reply.<replyid>.<id>@<domain>") and refers to the
// thread in In-Reply-To and References. Reply-To is [ReplyAddress], the
// board's address with "+<id>" and the subject carries "[prediction <id>]".
// [PredictionID] tries these in that order on an inbound message, and
// [ParentReplyID] tells which reply it answers (how a reply joins a debate).
//
// # Writing a notification
//
// [Notification.Bytes] writes the message with CRLF line ends, a UTF-8
// quoted-printable body ending with a guide to the tags [AGREE],
// [DISAGREE], [CHALLENGE] and [DEBATE], and Auto-Submitted: auto-generated
// so that auto-responders do not answer. No field can inject a header.
//
// # Errors
//
// Every error is an [*Error] naming the field, saying what was wrong and
// how to fix it, and wrapping a sentinel for [errors.Is]: [ErrTooLarge]
// (more than [Options.MaxBytes], refused rather than truncated),
// [ErrMalformed], [ErrNoText], [ErrCharset] from parsing, [ErrInvalid]
// from [Notification.Bytes].
//
// # Decisions
//
// Choices this package makes where the specification is silent:
//
//   - IDs in message IDs and addresses are 1 to 64 letters, digits, "-" or
//     "_" ([ValidID]); message IDs match only with the given domain
//     (ignoring case).
//   - A missing From gives a zero [Message.From] (the board refuses it);
//     a From that cannot be parsed is [ErrMalformed]. To and Cc that cannot
//     be parsed are left empty. An unparseable Date is the zero time.
//   - An encoded word in an unknown charset stays undecoded in the
//     subject; a text part in one is [ErrCharset].
//   - US-ASCII text with 8-bit bytes is read as UTF-8, and invalid UTF-8
//     becomes U+FFFD.
//   - Titles, names and the URL are written on one line: control
//     characters and runs of spaces become one space.
package email
