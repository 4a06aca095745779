//! What every page shares: the document head with its Content-Security-
//! Policy, and the tail loading the script.

use crate::escape::escape_into;

/// Scripts and styles only from files beside the page (`bryo.js`,
/// `bryo.css`): no inline script can run, whatever a submission holds, and
/// nothing is fetched from the network.
pub(crate) const CSP: &str =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'";

/// Appends the start of a page up to and including `<body>`.
pub(crate) fn head(out: &mut String, title: &str, body_class: &str) {
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"");
    out.push_str(CSP);
    out.push_str("\">\n<meta name=\"referrer\" content=\"no-referrer\">\n");
    out.push_str(
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
    );
    escape_into(out, title);
    out.push_str("</title>\n<link rel=\"stylesheet\" href=\"bryo.css\">\n</head>\n<body class=\"");
    out.push_str(body_class);
    out.push_str("\">\n");
}

/// Appends the end of a page.
pub(crate) fn tail(out: &mut String) {
    out.push_str("<script src=\"bryo.js\"></script>\n</body>\n</html>\n");
}
