package dev.safetensors.cli.arguments;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The table-driven parser: both option forms, repeats, the end of options, positional dealing and its errors. */
class ArgumentParserTest {
    private boolean flag;
    private Integer number;
    private Policy policy;
    private final List<String> repeated = new ArrayList<>();
    private String first;
    private final List<String> rest = new ArrayList<>();

    private CommandSpec spec(int restMin) {
        return new CommandSpec("test", List.of("A command."), List.of("", "Examples:", "  safetensors test A"))
                .option(OptionSpec.flag("--flag", "A flag.", () -> flag = true))
                .option(OptionSpec.value("--number", "N", "A number.", v -> number = OptionValue.integer(v)))
                .option(OptionSpec.value("--policy", "POLICY", "A policy.", v -> policy = OptionValue.policy(v)))
                .option(OptionSpec.value("--meta", "K=V", "Repeatable.", repeated::add).repeated())
                .positional(new PositionalSpec("FIRST", 1, 1, "The first.", v -> first = v))
                .positional(new PositionalSpec("REST", restMin, PositionalSpec.MANY, "The rest.", rest::add));
    }

    private boolean parse(String... args) {
        return ArgumentParser.parse(spec(0), List.of(args));
    }

    @Test
    void optionsTakeBothFormsAnywhereAmongThePositionals() {
        assertFalse(parse("a", "--number", "7", "b", "--policy=OFFICIAL", "--flag", "c"));
        assertTrue(flag);
        assertEquals(7, number);
        assertEquals(Policy.OFFICIAL, policy);
        assertEquals("a", first);
        assertEquals(List.of("b", "c"), rest);
    }

    @Test
    void repeatableOptionsKeepEveryValueInOrderAndOthersRefuseASecond() {
        parse("--meta", "k=v", "--meta=x=y", "a");
        assertEquals(List.of("k=v", "x=y"), repeated);
        UsageException twice = assertThrows(UsageException.class, () -> parse("--number", "1", "--number=2", "a"));
        assertEquals("option '--number' should be specified only once", twice.getMessage());
    }

    @Test
    void doubleDashEndsTheOptionsAndALoneDashIsAnArgument() {
        parse("--", "--flag", "-");
        assertFalse(flag);
        assertEquals("--flag", first);
        assertEquals(List.of("-"), rest);
    }

    @Test
    void helpWinsOverMissingParametersButNotOverAnUnknownOptionBeforeIt() {
        assertTrue(parse("--help"));
        assertTrue(parse("-h", "--number", "oops"));
        assertThrows(UsageException.class, () -> parse("--nope", "--help"));
    }

    @Test
    void everyMistakeIsAUsageExceptionNamingIt() {
        assertEquals("Unknown option: '--nope'", assertThrows(UsageException.class, () -> parse("--nope", "a"))
                .getMessage());
        assertEquals("Missing required parameter for option '--number' (N)", assertThrows(UsageException.class,
                () -> parse("a", "--number")).getMessage());
        assertEquals("Invalid value for option '--number': 'x' is not an int", assertThrows(UsageException.class,
                () -> parse("--number", "x", "a")).getMessage());
        assertTrue(assertThrows(UsageException.class, () -> parse("--policy", "lenient", "a")).getMessage()
                .contains("expected one of strict, official (case-insensitive) but was 'lenient'"));
        assertEquals("option '--flag' takes no value, was given 'yes'", assertThrows(UsageException.class,
                () -> parse("--flag=yes", "a")).getMessage());
        assertEquals("Missing required parameter: 'FIRST'", assertThrows(UsageException.class, () -> parse())
                .getMessage());
        assertEquals("Missing required parameter: 'REST'", assertThrows(UsageException.class,
                () -> ArgumentParser.parse(spec(1), List.of("a"))).getMessage());
    }

    @Test
    void surplusArgumentsAreUnmatched() {
        CommandSpec one = new CommandSpec("one", List.of("One."), List.of())
                .positional(new PositionalSpec("SOURCE", 0, 1, "At most one.", v -> first = v));
        assertEquals("Unmatched argument: 'b'", assertThrows(UsageException.class,
                () -> ArgumentParser.parse(one, List.of("a", "b"))).getMessage());
    }

    @Test
    void requiredOptionsAreNamedWithTheirLabel() {
        CommandSpec needsOut = new CommandSpec("x", List.of("X."), List.of())
                .option(OptionSpec.value("--out", "DIR", "Where.", v -> first = v).alias("-o").mandatory());
        assertEquals("Missing required option: '--out=DIR'", assertThrows(UsageException.class,
                () -> ArgumentParser.parse(needsOut, List.of())).getMessage());
        ArgumentParser.parse(needsOut, List.of("-o", "d"));
        assertEquals("d", first);
    }

    @Test
    void helpListsUsageDescriptionParametersOptionsAndTheFooterAsWritten() {
        String help = HelpText.of(spec(1));
        assertTrue(help.startsWith("Usage: safetensors test [OPTIONS] FIRST REST...\nA command.\n"), help);
        assertTrue(help.contains("\n      FIRST"), help);
        assertTrue(help.contains("\n      --number=N"), help);
        assertTrue(help.contains("\n  -h, --help"), help);
        assertTrue(help.endsWith("\nExamples:\n  safetensors test A\n"), help);
        for (String line : help.split("\n")) {
            assertTrue(line.length() <= HelpText.WIDTH, line);
        }
    }
}
