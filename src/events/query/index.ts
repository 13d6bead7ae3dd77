export {
  conditionMatchesValue,
  formatCondition,
  type Argument,
  type Condition,
  type DateArgument,
  type NumberArgument,
  type Operator,
  type OrderOperator,
  type OrderedArgument,
  type StringArgument,
  type TimeArgument,
} from './condition';
export { parseQuery, QueryParseError } from './parser';
export { Query, type EventMap } from './query';
