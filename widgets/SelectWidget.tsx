import { enumOptionsIndexForValue, enumOptionsValueForIndex, type WidgetProps } from '@rjsf/utils';
import { ChoiceSelect } from './ChoiceSelect';

/**
 * Every list of choices of a schema's `enum` (the gender), drawn like the state and city lists
 * (ChoiceSelect). Replaces rjsf's own select (registered as `SelectWidget`); options are
 * addressed by their index, as rjsf's are.
 */
export default function SelectWidget(props: WidgetProps) {
  const { enumOptions = [], enumDisabled = [], emptyValue } = props.options;
  const selected = enumOptionsIndexForValue(props.value, enumOptions, false);
  return (
    <div className="w-select">
      <ChoiceSelect
        widget={props}
        value={typeof selected === 'undefined' ? '' : String(selected)}
        toValue={(index) => enumOptionsValueForIndex(index, enumOptions, emptyValue)}
      >
        {enumOptions.map((option, index) => (
          <option key={String(option.value)} value={String(index)} disabled={enumDisabled.includes(option.value)}>
            {option.label}
          </option>
        ))}
      </ChoiceSelect>
    </div>
  );
}
