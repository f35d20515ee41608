package dev.safetensors.spi;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A remote source whose backend plays a script of answers, one per attempt, and records what it was asked and
 * whether each answer's connection was released (body closed after its end) or aborted.
 */
final class ScriptedSource extends AbstractRangedSource<String> {
    /** One scripted attempt: an answer, or a failure to throw instead. */
    record Step(int status, Map<String, String> headers, InputStream body, IOException failure) {
    }

    final Deque<Step> script = new ArrayDeque<>();
    final List<String> asked = new ArrayList<>();
    final AtomicInteger aborted = new AtomicInteger();
    final AtomicInteger released = new AtomicInteger();

    ScriptedSource(RemotePolicy policy) {
        super("scripted://object", policy, null);
    }

    ScriptedSource answer(int status, Map<String, String> headers, byte[] body) {
        return answer(status, headers, new ByteArrayInputStream(body));
    }

    ScriptedSource answer(int status, Map<String, String> headers, InputStream body) {
        TreeMap<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        h.putAll(headers);
        script.add(new Step(status, h, body, null));
        return this;
    }

    ScriptedSource fail(IOException failure) {
        script.add(new Step(0, Map.of(), null, failure));
        return this;
    }

    @Override
    protected RangeAnswer send(long position, long length, String version) throws IOException {
        asked.add("bytes=" + position + "-" + (position + length - 1) + (version == null ? "" : " if " + version));
        Step step = script.poll();
        if (step == null) {
            throw new AssertionError("no answer scripted for request " + asked.size());
        }
        if (step.failure() != null) {
            throw step.failure();
        }
        boolean[] abortedHere = {false};
        InputStream body = new java.io.FilterInputStream(step.body()) {
            @Override
            public void close() throws IOException {
                if (!abortedHere[0]) {
                    released.incrementAndGet();
                }
                super.close();
            }
        };
        return new RangeAnswer(step.status(), step.headers()::get, body, () -> {
            abortedHere[0] = true;
            aborted.incrementAndGet();
        });
    }

    @Override
    protected String identify(RangeAnswer answer, String version) {
        String etag = answer.header("ETag");
        if (version != null && etag != null && !version.equals(etag)) {
            throw new IllegalStateException("scripted answers keep one ETag");
        }
        return version != null ? version : etag;
    }
}
