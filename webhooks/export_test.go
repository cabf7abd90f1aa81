package webhooks

// Failure is failure, the reason an attempt failed, for the tests.
var Failure = failure
