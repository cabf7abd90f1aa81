package signature_test

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/predictions-md/predictions/webhooks/signature"
)

// The test vectors of the reference implementation: Standard Webhooks'
// Go library, libraries/go/webhook_test.go in
// github.com/standard-webhooks/standard-webhooks (TestWebhookSign and the
// cases of TestWebhook), which the other libraries of that repository
// share.
const (
	vectorSecret    = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	vectorID        = "msg_p5jXN8AQM9LWM0D4loKWxJek"
	vectorTimestamp = 1614265330
	vectorBody      = `{"test": 2432232314}`
	vectorSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	// vectorWrong is the reference's "invalid signature".
	vectorWrong = "v1,Ceo5qEr07ixe2NLpvHk3FH9bwy/WavXrAFQ/9tdO6mc="
)

func mustSecret(t *testing.T, s string) signature.Secret {
	t.Helper()
	sec, err := signature.ParseSecret(s)
	if err != nil {
		t.Fatalf("ParseSecret(%q): %v", s, err)
	}
	return sec
}

func TestSignVector(t *testing.T) {
	for _, s := range []string{vectorSecret, strings.TrimPrefix(vectorSecret, "whsec_")} {
		got, err := signature.Sign(vectorID, time.Unix(vectorTimestamp, 0), []byte(vectorBody), mustSecret(t, s))
		if err != nil || got != vectorSignature {
			t.Errorf("Sign with secret %q = %q, %v; want %q", s, got, err, vectorSignature)
		}
	}
	if got := mustSecret(t, vectorSecret).String(); got != vectorSecret {
		t.Errorf("Secret.String() = %q, want %q", got, vectorSecret)
	}
}

// TestVerifyVectors: the reference's cases. Its clock is time.Now, whose
// fraction of a second puts "now - tolerance" (in whole seconds) just
// past the tolerance; the clock here is a whole second and a half past
// the vector's timestamp to the same effect.
func TestVerifyVectors(t *testing.T) {
	sec := mustSecret(t, vectorSecret)
	ts := time.Unix(vectorTimestamp, 0)
	now := ts.Add(500 * time.Millisecond)
	signed := func(at time.Time) string {
		s, err := signature.Sign(vectorID, at, []byte(vectorBody), sec)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	unix := func(at time.Time) string { return strconv.FormatInt(at.Unix(), 10) }
	tests := []struct {
		name               string
		id, timestamp, sig string
		body               string
		want               error // nil, or the sentinel
	}{
		{"valid signature is valid", vectorID, unix(ts), vectorSignature, vectorBody, nil},
		{"missing id", "", unix(ts), vectorSignature, vectorBody, signature.ErrHeader},
		{"missing timestamp", vectorID, "", vectorSignature, vectorBody, signature.ErrHeader},
		{"missing signature", vectorID, unix(ts), "", vectorBody, signature.ErrHeader},
		{"invalid signature is invalid", vectorID, unix(ts), vectorWrong, vectorBody, signature.ErrSignature},
		{"old timestamp fails", vectorID, unix(now.Add(-signature.Tolerance)), signed(now.Add(-signature.Tolerance)), vectorBody, signature.ErrTimestamp},
		{"new timestamp fails", vectorID, unix(now.Add(signature.Tolerance + time.Second)), signed(now.Add(signature.Tolerance + time.Second)), vectorBody, signature.ErrTimestamp},
		{"valid multi sig is valid", vectorID, unix(ts), strings.Join([]string{vectorWrong, "v2," + strings.TrimPrefix(vectorWrong, "v1,"), vectorSignature, vectorWrong}, " "), vectorBody, nil},
		// Beyond the reference's cases.
		{"altered body", vectorID, unix(ts), vectorSignature, `{"test": 2432232315}`, signature.ErrSignature},
		{"other id", "msg_other", unix(ts), vectorSignature, vectorBody, signature.ErrSignature},
		{"other timestamp", vectorID, unix(ts.Add(time.Second)), vectorSignature, vectorBody, signature.ErrSignature},
		{"asymmetric entries only", vectorID, unix(ts), "v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw==", vectorBody, signature.ErrSignature},
		{"timestamp not a number", vectorID, "1614265330.0", vectorSignature, vectorBody, signature.ErrHeader},
		{"timestamp with a sign", vectorID, "+1614265330", vectorSignature, vectorBody, signature.ErrHeader},
		{"signature not base64", vectorID, unix(ts), "v1,not base64!", vectorBody, signature.ErrSignature},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range map[string]string{signature.HeaderID: tt.id, signature.HeaderTimestamp: tt.timestamp, signature.HeaderSignature: tt.sig} {
			if v != "" {
				h.Set(k, v)
			}
		}
		err := signature.Verify(sec, h, []byte(tt.body), now)
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s: Verify = %v, want nil", tt.name, err)
			}
			continue
		}
		var we *signature.Error
		if !errors.Is(err, tt.want) || !errors.As(err, &we) || we.Field == "" || we.Hint == "" {
			t.Errorf("%s: Verify = %v, want an *Error wrapping %v", tt.name, err, tt.want)
		}
	}
}

func TestRotation(t *testing.T) {
	old, cur := mustSecret(t, vectorSecret), mustSecret(t, "whsec_c2VjcmV0LW9mLWEtcm90YXRlZC1lbmRwb2ludA==")
	now := time.Unix(vectorTimestamp, 0)
	h := http.Header{}
	if err := signature.SetHeaders(h, vectorID, now, []byte(vectorBody), cur, old); err != nil {
		t.Fatal(err)
	}
	if sig := h.Get(signature.HeaderSignature); !strings.HasSuffix(sig, " "+vectorSignature) || strings.Count(sig, "v1,") != 2 {
		t.Errorf("signature during a rotation = %q, want the current key's then the old key's (%s)", sig, vectorSignature)
	}
	for _, sec := range []signature.Secret{old, cur} {
		if err := signature.Verify(sec, h, []byte(vectorBody), now); err != nil {
			t.Errorf("Verify with either secret of the rotation: %v", err)
		}
	}
}

func TestSignRefuses(t *testing.T) {
	sec := mustSecret(t, vectorSecret)
	for _, id := range []string{"", "msg.1", "msg 1", strings.Repeat("x", 257)} {
		if _, err := signature.Sign(id, time.Now(), nil, sec); !errors.Is(err, signature.ErrHeader) {
			t.Errorf("Sign(id %q) = %v, want ErrHeader", id, err)
		}
	}
	if _, err := signature.Sign("msg_1", time.Now(), nil); !errors.Is(err, signature.ErrHeader) {
		t.Errorf("Sign without a secret = %v, want ErrHeader", err)
	}
}

func TestParseSecret(t *testing.T) {
	for _, s := range []string{"", "whsec_", "whsec_not base64!", "whsec_c2hvcnQ=", "whsec_" + strings.Repeat("QUFB", 22)} {
		if _, err := signature.ParseSecret(s); !errors.Is(err, signature.ErrHeader) {
			t.Errorf("ParseSecret(%q) = %v, want ErrHeader", s, err)
		}
	}
	s, err := signature.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	back, err := signature.ParseSecret(s.String())
	if err != nil || string(back) != string(s) || len(s) != 32 {
		t.Errorf("ParseSecret(NewSecret().String()) = %x, %v; want the %d bytes back", back, err, len(s))
	}
}

// FuzzVerify: Verify never panics on any header values, refuses only
// with an *Error naming a header, and accepts what Sign made.
func FuzzVerify(f *testing.F) {
	f.Add(vectorID, strconv.Itoa(vectorTimestamp), vectorSignature, []byte(vectorBody))
	f.Add("", "", "", []byte{})
	f.Add("msg.1", "-1", "v1, v1a,x v1,,", []byte("x"))
	f.Add(vectorID, "99999999999999999999", vectorWrong+"  "+vectorSignature, []byte(vectorBody))
	sec, err := signature.ParseSecret(vectorSecret)
	if err != nil {
		f.Fatal(err)
	}
	now := time.Unix(vectorTimestamp, 0)
	f.Fuzz(func(t *testing.T, id, timestamp, sig string, body []byte) {
		err := signature.VerifyHeaders(sec, id, timestamp, sig, body, now)
		var we *signature.Error
		if err != nil && (!errors.As(err, &we) || we.Field == "") {
			t.Fatalf("VerifyHeaders(%q, %q, %q) = %v, not an *Error with a field", id, timestamp, sig, err)
		}
		s, err := signature.Sign(id, now, body, sec)
		if err != nil {
			return // an id Sign refuses
		}
		if err := signature.VerifyHeaders(sec, id, strconv.FormatInt(now.Unix(), 10), sig+" "+s, body, now); err != nil {
			t.Fatalf("Verify of a signed delivery (id %q) = %v", id, err)
		}
	})
}
