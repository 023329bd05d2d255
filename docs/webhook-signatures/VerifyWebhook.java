// Verifies a delivery of the Rewards API's webhooks (docs/webhooks.md, Request format and signature).
// Java 11 or later, JDK only. Run as a check (single-file source launch):
//   WEBHOOK_SECRET=whsec_... java VerifyWebhook.java "<X-Webhook-Timestamp>" "<X-Webhook-Signature>" < raw-body
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public final class VerifyWebhook {
  static final long TOLERANCE_SECONDS = 300;

  /**
   * True when one {@code v1=} value of the X-Webhook-Signature header is the HMAC-SHA256 of
   * {@code <timestamp>.<raw body>} keyed with the endpoint's secret ({@code whsec_...}, all of it), and
   * the timestamp is within five minutes of {@code nowSeconds}. {@code rawBody} is the body's bytes as
   * received, never JSON parsed and serialised again.
   */
  public static boolean verify(String secret, String timestamp, String signatureHeader, byte[] rawBody, long nowSeconds)
      throws Exception {
    if (!timestamp.matches("[0-9]{1,12}") || Math.abs(nowSeconds - Long.parseLong(timestamp)) > TOLERANCE_SECONDS) {
      return false;
    }
    Mac mac = Mac.getInstance("HmacSHA256");
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
    mac.update((timestamp + ".").getBytes(StandardCharsets.US_ASCII));
    byte[] expected = String.format("%064x", new BigInteger(1, mac.doFinal(rawBody))).getBytes(StandardCharsets.US_ASCII);
    // During a secret rotation the header carries two signatures, "v1=<new> v1=<old>": either may match.
    boolean matched = false;
    for (String part : signatureHeader.split(" ")) {
      if (part.startsWith("v1=")) {
        matched |= MessageDigest.isEqual(part.substring(3).getBytes(StandardCharsets.UTF_8), expected); // constant time
      }
    }
    return matched;
  }

  public static void main(String[] args) throws Exception {
    String secret = System.getenv().getOrDefault("WEBHOOK_SECRET", "");
    String timestamp = args.length > 0 ? args[0] : "";
    String signatureHeader = args.length > 1 ? args[1] : "";
    boolean ok = verify(secret, timestamp, signatureHeader, System.in.readAllBytes(), System.currentTimeMillis() / 1000);
    System.out.println(ok ? "verified" : "rejected");
    System.exit(ok ? 0 : 1);
  }
}
