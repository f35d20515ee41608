package dev.safetensors.gcs;

import com.google.api.gax.retrying.RetrySettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RetryPolicyTest {

    private static RetrySettings.Builder settings() {
        return RetrySettings.newBuilder().setInitialRetryDelayDuration(Duration.ofMillis(100))
                .setRetryDelayMultiplier(2.0).setMaxRetryDelayDuration(Duration.ofMillis(300));
    }

    @Test
    void maxAttemptsBoundsTheAttemptsAndDelaysGrowToTheirCap() {
        RetryPolicy p = RetryPolicy.of(settings().setMaxAttempts(4).build());
        assertEquals(Duration.ofMillis(100), p.delayAfter(1, 0));
        assertEquals(Duration.ofMillis(200), p.delayAfter(2, 0));
        assertEquals(Duration.ofMillis(300), p.delayAfter(3, 0));
        assertNull(p.delayAfter(4, 0));
    }

    @Test
    void theTotalTimeoutBoundsAttemptsWhenMaxAttemptsIsUnset() {
        RetryPolicy p = RetryPolicy.of(settings().setMaxAttempts(0).setTotalTimeoutDuration(Duration.ofSeconds(1))
                .build());
        assertEquals(Duration.ofMillis(300), p.delayAfter(50, Duration.ofMillis(600).toNanos()));
        assertNull(p.delayAfter(51, Duration.ofMillis(800).toNanos()));
    }

    @Test
    void noBoundAtAllMeansOneAttempt() {
        assertNull(RetryPolicy.of(settings().setMaxAttempts(0).build()).delayAfter(1, 0));
    }

    @Test
    void onlyTransientStatusesAreRetried() {
        for (int status : new int[] {408, 429, 500, 502, 503, 504}) {
            assertTrue(RetryPolicy.isRetryableStatus(status), Integer.toString(status));
        }
        for (int status : new int[] {200, 206, 400, 401, 403, 404, 412, 416, 501}) {
            assertFalse(RetryPolicy.isRetryableStatus(status), Integer.toString(status));
        }
    }
}
