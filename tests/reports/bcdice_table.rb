# Rolls a BCDice original table with BCDice's own parser (UserDefinedDiceTable), offline:
#   ruby bcdice_table.rb BCDICE_LIB TABLE_FILE N...
# prints one JSON line: {"valid": bool, "results": {"N": text or null, ...}}, each N the number
# the dice give (a randomizer of this file's own that returns it).
require "json"
$LOAD_PATH.unshift ARGV[0]
require "bcdice/enum"
require "bcdice/result"
require "bcdice/randomizer"
require "bcdice/user_defined_dice_table"

# Gives the number asked for, as a sum of dice or a D66.
class GivenNumber
  def initialize(number)
    @number = number
  end

  def roll_sum(_times, _sides)
    @number
  end

  def roll_d66(_sort)
    @number
  end

  def rand_results
    []
  end

  def detailed_rand_results
    []
  end
end

table = BCDice::UserDefinedDiceTable.new(File.read(ARGV[1], encoding: "UTF-8"))
results = ARGV[2..].to_h do |n|
  result = table.roll(randomizer: GivenNumber.new(n.to_i))
  [n, result&.text]
end
puts JSON.generate({ "valid" => table.valid?, "results" => results })
