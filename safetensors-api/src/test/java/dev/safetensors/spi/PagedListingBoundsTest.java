package dev.safetensors.spi;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.ListOptions;
import dev.safetensors.Location;
import dev.safetensors.StorageException;
import dev.safetensors.testing.ManualTime;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An endless or hostile listing ends coded, in bounded requests and memory: fresh tokens over empty pages, requests
 * that take longer than the listing's time, a cycle of continuation tokens of any length, a key listed twice.
 */
class PagedListingBoundsTest {
    private final ManualTime time = new ManualTime();

    /** A server's answer to one page request. */
    private interface Server {
        /**
         * @param page the page asked, from 0
         * @return the keys of that page and the token of the next one, {@code null} after the last
         */
        Answer page(long page) throws IOException;
    }

    private record Answer(List<String> keys, List<String> prefixes, String next) {
        static Answer of(String next, String... keys) {
            return new Answer(List.of(keys), List.of(), next);
        }
    }

    /** A bucket listing whose pages a {@link Server} answers, each key checked as the bucket backends check it. */
    private static final class Fake extends BucketListing {
        private final Server server;
        private final boolean ordered;
        private final ManualTime time;
        private final Duration perRequest;
        private long asked;

        Fake(ListOptions options, Server server, boolean ordered, ManualTime time, Duration perRequest)
                throws IOException {
            super(Location.parse("s3://bucket/p/"), options, 1000,
                    RemotePolicy.builder().maxAttempts(1).time(time).build());
            this.server = server;
            this.ordered = ordered;
            this.time = time;
            this.perRequest = perRequest;
        }

        @Override
        protected boolean listsInOrder() {
            return ordered;
        }

        @Override
        protected RetriedRequest.Outcome<Page> fetch(String token) throws IOException {
            counter().exchange();
            time.advance(perRequest);
            Answer a = server.page(asked++);
            List<ListEntry> entries = new ArrayList<>();
            for (String key : a.keys()) {
                if (listed(key, "the key")) {
                    entries.add(at().fileEntry(key, 1, null, null));
                }
            }
            for (String prefix : a.prefixes()) {
                if (listedPrefix(prefix)) {
                    entries.add(at().folderEntry(prefix));
                }
            }
            return RetriedRequest.Outcome.answer(new Page(entries, a.next()));
        }
    }

    private Fake listing(ListOptions options, Server server) throws IOException {
        return new Fake(options, server, true, time, Duration.ofMillis(100));
    }

    private static List<ListEntry> drain(PagedListing listing) throws IOException {
        List<ListEntry> got = new ArrayList<>();
        while (listing.hasNext()) {
            got.add(listing.next());
        }
        return got;
    }

    private static StorageException fails(PagedListing listing) {
        StorageException e = assertThrows(StorageException.class, () -> drain(listing));
        assertEquals(ErrorCode.INVALID_LISTING, e.code(), e.getMessage());
        return e;
    }

    @Test
    void freshTokensOverEmptyPagesEndAtTheEmptyPageBound() throws IOException {
        Fake endless = listing(ListOptions.DEFAULT, page -> Answer.of("t" + page));
        fails(endless);
        assertEquals(ListOptions.DEFAULT_MAX_EMPTY_PAGES, endless.asked, "the default bound, not the page bound");

        Fake small = listing(ListOptions.DEFAULT.withEndlessBounds(5, ListOptions.DEFAULT_MAX_TIME),
                page -> Answer.of("t" + page));
        fails(small);
        assertEquals(5, small.asked);
    }

    @Test
    void anEmptyPageNowAndThenIsNoFailure() throws IOException {
        Fake listing = listing(ListOptions.DEFAULT.withEndlessBounds(3, ListOptions.DEFAULT_MAX_TIME),
                page -> page == 12 ? Answer.of(null) : page % 3 == 2 ? Answer.of("t" + page, "p/k" + (100 + page))
                        : Answer.of("t" + page));
        assertEquals(4, drain(listing).size());
        assertEquals(13, listing.pages());
    }

    @Test
    void aListingWhoseRequestsTakeLongerThanItsTimeEnds() throws IOException {
        // fresh tokens and fresh keys forever, each page taking a minute of the listing's clock
        ListOptions options = ListOptions.DEFAULT.withEndlessBounds(1000, Duration.ofMinutes(30));
        Fake slow = new Fake(options, page -> Answer.of("t" + page, "p/k" + (1_000_000 + page)), true, time,
                Duration.ofMinutes(1));
        StorageException e = fails(slow);
        assertEquals(31, slow.asked, e.getMessage());
    }

    @Test
    void retriesEndWhenTheirWaitsUseUpTheListingTime() {
        // a page answered 503 again and again, with attempts to spare: the waits count against the listing's time
        RemotePolicy patient = RemotePolicy.builder().maxAttempts(20).backoff(Duration.ofSeconds(1),
                Duration.ofMinutes(1)).time(time).build();
        int[] attempts = {0};
        PagedListing listing = new PagedListing("s3://bucket/p/", ListOptions.DEFAULT.withEndlessBounds(1000,
                Duration.ofMinutes(3)), 1000, patient) {
            @Override
            protected RetriedRequest.Outcome<Page> fetch(String token) throws IOException {
                attempts[0]++;
                return answered(503, null, null);
            }
        };
        fails(listing);
        assertTrue(attempts[0] < 20, attempts[0] + " attempts: ended by the time, not by the attempts");
        Duration slept = time.sleeps().stream().reduce(Duration.ZERO, Duration::plus);
        assertTrue(slept.compareTo(Duration.ofMinutes(3)) > 0 && slept.compareTo(Duration.ofMinutes(4)) <= 0,
                slept.toString());
    }

    @Test
    void theTimeTheCallerSpendsOnEntriesDoesNotCount() throws IOException {
        ListOptions options = ListOptions.DEFAULT.withEndlessBounds(1000, Duration.ofMinutes(30));
        Fake listing = new Fake(options, page -> Answer.of(page == 9 ? null : "t" + page, "p/k" + (10 + page)),
                true, time, Duration.ofSeconds(1));
        int seen = 0;
        while (listing.hasNext()) {
            listing.next();
            time.advance(Duration.ofHours(1)); // validating the entry, not listing
            seen++;
        }
        assertEquals(10, seen);
    }

    @Test
    void aCycleOfSixtyFiveTokensIsCaughtWhenTheFirstKeyComesBack() throws IOException {
        // 65 tokens, one past what is remembered: each page names one key, and the 66th page is the first again
        int cycle = PagedListing.REMEMBERED_TOKENS + 1;
        Fake listing = listing(ListOptions.DEFAULT, page -> Answer.of("t" + ((page + 1) % cycle),
                String.format("p/k%03d.safetensors", page % cycle)));
        fails(listing);
        assertEquals(cycle + 1, listing.asked);
    }

    @Test
    void aKeyListedTwiceIsRefusedWithinAPageAndAcrossPages() throws IOException {
        fails(listing(ListOptions.DEFAULT, page -> Answer.of(null, "p/a", "p/a")));
        Fake across = listing(ListOptions.DEFAULT, page -> page == 0 ? Answer.of("t1", "p/a", "p/b")
                : Answer.of(null, "p/b", "p/c"));
        fails(across);
        Fake back = listing(ListOptions.DEFAULT, page -> page == 0 ? Answer.of("t1", "p/b")
                : Answer.of(null, "p/a"));
        fails(back);
    }

    @Test
    void keysComeInUtf8BinaryOrderNotUtf16Order() throws IOException {
        // U+FFFF sorts before U+1F600 in UTF-8 (and code points), after it in UTF-16 code units
        Fake listing = listing(ListOptions.DEFAULT, page -> Answer.of(null, "p/a\uFFFF", "p/a\uD83D\uDE00"));
        assertEquals(2, drain(listing).size());
        assertEquals(-1, Integer.signum(PagedListing.compareCodePoints("a\uFFFF", "a\uD83D\uDE00")));
        assertEquals(-1, Integer.signum(PagedListing.compareCodePoints("a", "ab")));
        assertEquals(0, PagedListing.compareCodePoints("ab", "ab"));
    }

    @Test
    void aPrefixRepeatedAtTheTopOfTheNextPageIsListedOnceAndOneThatGoesBackIsRefused() throws IOException {
        Fake listing = listing(ListOptions.DEFAULT, page -> page == 0
                ? new Answer(List.of("p/a"), List.of("p/m/"), "t1")
                : new Answer(List.of("p/b"), List.of("p/m/", "p/n/"), null));
        List<String> got = drain(listing).stream().map(e -> e.location().display()).toList();
        assertEquals(List.of("s3://bucket/p/a", "s3://bucket/p/m/", "s3://bucket/p/b", "s3://bucket/p/n/"), got);
        fails(listing(ListOptions.DEFAULT, page -> page == 0 ? new Answer(List.of(), List.of("p/n/"), "t1")
                : new Answer(List.of(), List.of("p/m/"), null)));
    }

    @Test
    void aStorageThatListsInNoOrderIsNotHeldToOne() throws IOException {
        Fake listing = new Fake(ListOptions.DEFAULT, page -> Answer.of(null, "p/b", "p/a"), false, time,
                Duration.ZERO);
        assertEquals(2, drain(listing).size());
    }

    @Test
    void aNameNoRequestCanNameIsAnInvalidNameEntryNotAnotherObject() throws IOException {
        Fake listing = listing(ListOptions.DEFAULT, page -> Answer.of(null, "p/a\u0000b.safetensors",
                "p/c\uDC00d.safetensors", "p/ok.safetensors"));
        List<ListEntry> got = drain(listing);
        assertEquals(List.of(ListEntry.Kind.INVALID_NAME, ListEntry.Kind.INVALID_NAME, ListEntry.Kind.FILE),
                got.stream().map(ListEntry::kind).toList());
        assertEquals("s3://bucket/p/a%00b.safetensors", got.get(0).location().display());
        assertEquals("s3://bucket/p/c%EF%BF%BDd.safetensors", got.get(1).location().display(),
                "shown with U+FFFD, never as the object c?d");
    }
}
