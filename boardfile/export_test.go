package boardfile

// ImportBatched is Import in transactions of about batchLines forecast
// lines, so that a test can cut a small file into several.
var ImportBatched = importBatched
