// Package peopletest is a software passkey for tests: an authenticator
// that answers WebAuthn registrations and sign-ins as a browser and a
// platform authenticator would (attestation "none", ES256), so that tests
// can drive package people and the pages' sign-in without a browser, and
// forge answers that a real authenticator would never give.
package peopletest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/fxamacker/cbor/v2"
)

// Passkey is one credential of a software authenticator.
type Passkey struct {
	// Origin is the origin the "browser" reports in clientDataJSON.
	Origin string
	// ID is the credential id; Handle the user handle it was made for.
	ID, Handle []byte
	// Key signs the assertions; Count is the signature counter, which
	// each sign-in increments before signing.
	Key   *ecdsa.PrivateKey
	Count uint32
	rpID  string
}

// The authenticator data flags (WebAuthn §6.1).
const (
	flagUP = 0x01 // user present
	flagUV = 0x04 // user verified
	flagAT = 0x40 // attested credential data included
)

var b64 = base64.RawURLEncoding

// options reads the publicKey member of a ceremony's options.
type options struct {
	PublicKey struct {
		Challenge string `json:"challenge"`
		RP        struct {
			ID string `json:"id"`
		} `json:"rp"`
		RPID string `json:"rpId"`
		User struct {
			ID string `json:"id"`
		} `json:"user"`
	} `json:"publicKey"`
}

// Create answers registration options (the JSON the server gives, with
// a publicKey member) from origin: a new passkey and the answer's JSON,
// as PublicKeyCredential.toJSON gives it.
func Create(origin string, optionsJSON []byte) (*Passkey, []byte, error) {
	var o options
	if err := json.Unmarshal(optionsJSON, &o); err != nil {
		return nil, nil, fmt.Errorf("peopletest: options: %w", err)
	}
	handle, err := b64.DecodeString(o.PublicKey.User.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("peopletest: user id: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	pk := &Passkey{Origin: origin, ID: id, Handle: handle, Key: key, rpID: o.PublicKey.RP.ID}
	cdj, err := clientData("webauthn.create", o.PublicKey.Challenge, origin)
	if err != nil {
		return nil, nil, err
	}
	// The uncompressed point: 0x04, then X and Y of 32 bytes each.
	point, err := key.PublicKey.Bytes()
	if err != nil {
		return nil, nil, err
	}
	x, y := point[1:33], point[33:65]
	// The COSE_Key of an ES256 public key (RFC 9053 §7.1.1).
	cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: x, -3: y})
	if err != nil {
		return nil, nil, err
	}
	auth := authData(pk.rpID, flagUP|flagUV|flagAT, 0)
	auth = append(auth, make([]byte, 16)...) // AAGUID: none
	auth = binary.BigEndian.AppendUint16(auth, uint16(len(id)))
	auth = append(auth, id...)
	auth = append(auth, cose...)
	att, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": auth})
	if err != nil {
		return nil, nil, err
	}
	answer, err := json.Marshal(map[string]any{
		"id": b64.EncodeToString(id), "rawId": b64.EncodeToString(id), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(cdj), "attestationObject": b64.EncodeToString(att),
			"transports": []string{"internal"}},
	})
	return pk, answer, err
}

// Get answers sign-in options with this passkey: the answer's JSON.
func (pk *Passkey) Get(optionsJSON []byte) ([]byte, error) {
	var o options
	if err := json.Unmarshal(optionsJSON, &o); err != nil {
		return nil, fmt.Errorf("peopletest: options: %w", err)
	}
	rpID := o.PublicKey.RPID
	if rpID == "" {
		rpID = pk.rpID
	}
	cdj, err := clientData("webauthn.get", o.PublicKey.Challenge, pk.Origin)
	if err != nil {
		return nil, err
	}
	pk.Count++
	auth := authData(rpID, flagUP|flagUV, pk.Count)
	h := sha256.Sum256(cdj)
	digest := sha256.Sum256(append(append([]byte{}, auth...), h[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, pk.Key, digest[:])
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]any{
		"id": b64.EncodeToString(pk.ID), "rawId": b64.EncodeToString(pk.ID), "type": "public-key",
		"authenticatorAttachment": "platform", "clientExtensionResults": map[string]any{},
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(cdj), "authenticatorData": b64.EncodeToString(auth),
			"signature": b64.EncodeToString(sig), "userHandle": b64.EncodeToString(pk.Handle)},
	})
}

func clientData(typ, challenge, origin string) ([]byte, error) {
	return json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": origin, "crossOrigin": false})
}

// authData is the authenticator data's fixed part: the SHA-256 of the
// relying party id, the flags and the signature counter.
func authData(rpID string, flags byte, count uint32) []byte {
	h := sha256.Sum256([]byte(rpID))
	b := append(h[:], flags)
	return binary.BigEndian.AppendUint32(b, count)
}
